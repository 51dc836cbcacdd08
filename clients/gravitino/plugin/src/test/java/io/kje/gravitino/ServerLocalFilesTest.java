package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kje.jobexecutor.v1.JobTemplate;
import io.kje.jobexecutor.v1.ShellJob;
import io.kje.jobexecutor.v1.SparkJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLocalFilesTest {
  @TempDir Path dir;

  @Test
  void plainPathsAndFileUrisAreServerLocal() {
    assertEquals(Paths.get("/a/b.jar"), ServerLocalFiles.localPath("/a/b.jar"));
    assertEquals(Paths.get("/a/b.jar"), ServerLocalFiles.localPath("/a/./c/../b.jar"));
    assertEquals(Paths.get("").toAbsolutePath().resolve("b.jar"),
        ServerLocalFiles.localPath("b.jar"));
    assertEquals(Paths.get("/a/b c.jar"), ServerLocalFiles.localPath("file:///a/b%20c.jar"));
    assertEquals(Paths.get("/a/b.jar"), ServerLocalFiles.localPath("file:/a/b.jar"));
    assertEquals(Paths.get("/a/b.jar"), ServerLocalFiles.localPath("FILE://localhost/a/b.jar"));
  }

  @Test
  void urisTheClusterReachesAreNot() {
    for (String uri : List.of("local:///opt/spark/examples.jar", "https://h/x.jar", "s3a://b/x.jar",
        "hdfs://nn/x.jar", "kje-artifact:abc", "")) {
      assertNull(ServerLocalFiles.localPath(uri), uri);
    }
    assertNull(ServerLocalFiles.localPath(null));
  }

  @Test
  void fileUrisOfAnotherHostOrWithExtrasAreRefused() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ServerLocalFiles.localPath("file://other/a.jar")).getMessage()
        .contains("a file on host other"));
    assertThrows(IllegalArgumentException.class,
        () -> ServerLocalFiles.localPath("file:///a.zip#env"));
    assertThrows(IllegalArgumentException.class, () -> ServerLocalFiles.localPath("file:///a?x"));
    assertThrows(IllegalArgumentException.class, () -> ServerLocalFiles.localPath("file:"));
  }

  private static JobTemplate spark(String executable, List<String> jars, List<String> files,
      List<String> archives) {
    return JobTemplate.newBuilder().setName("t").setExecutable(executable)
        .addArguments("/not/a/file").setSpark(SparkJob.newBuilder().addAllJars(jars)
            .addAllFiles(files).addAllArchives(archives).putConfigs("spark.jars", "/x.jar"))
        .build();
  }

  @Test
  void eachLocalFileOnceInOrderOfMention() {
    JobTemplate t = spark("/s/main.py", List.of("local:///opt/a.jar", "/s/dep.jar"),
        List.of("file:///s/main.py", "https://h/data.csv"), List.of("/s/env.zip"));
    assertEquals(List.of(Paths.get("/s/main.py"), Paths.get("/s/dep.jar"), Paths.get("/s/env.zip")),
        ServerLocalFiles.of(t));
    // Arguments and configs are the job's business, not files to upload.
    assertEquals(List.of(), ServerLocalFiles.of(spark("local:///a.jar", List.of(), List.of(),
        List.of())));
    // The service refuses shell jobs itself; nothing is uploaded for them.
    assertEquals(List.of(), ServerLocalFiles.of(JobTemplate.newBuilder().setExecutable("/s/a.sh")
        .setShell(ShellJob.newBuilder().addScripts("/s/b.sh")).build()));
  }

  @Test
  void twoFilesOfOneNameAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ServerLocalFiles.of(spark("/a/x.jar", List.of("/b/x.jar"), List.of(), List.of())));
    assertEquals("The job template names two files called x.jar (/a/x.jar and /b/x.jar); a job's"
        + " files need distinct names", e.getMessage());
  }

  @Test
  void rewriteReplacesEveryMentionAndNothingElse() {
    JobTemplate t = spark("/s/main.py", List.of("local:///opt/a.jar", "/s/dep.jar"),
        List.of("file:///s/main.py"), List.of());
    JobTemplate r = ServerLocalFiles.rewrite(t, Map.of(Paths.get("/s/main.py"), "ref-main",
        Paths.get("/s/dep.jar"), "ref-dep"));
    assertEquals("ref-main", r.getExecutable());
    assertEquals(List.of("local:///opt/a.jar", "ref-dep"), r.getSpark().getJarsList());
    assertEquals(List.of("ref-main"), r.getSpark().getFilesList());
    assertEquals(List.of("/not/a/file"), r.getArgumentsList());
    assertEquals("/x.jar", r.getSpark().getConfigsOrThrow("spark.jars"));
    assertSame(t, ServerLocalFiles.rewrite(t, Map.of()));
    assertThrows(IllegalStateException.class,
        () -> ServerLocalFiles.rewrite(t, Map.of(Paths.get("/s/main.py"), "ref-main")));
  }

  @Test
  void onlyReadableRegularFilesPass() throws Exception {
    Path jar = Files.write(dir.resolve("a.jar"), new byte[] {1});
    ServerLocalFiles.checkReadable(List.of(jar));
    assertEquals("The job template names " + dir.resolve("gone.jar") + ", which is not a file on"
        + " the Gravitino server", assertThrows(IllegalArgumentException.class,
            () -> ServerLocalFiles.checkReadable(List.of(jar, dir.resolve("gone.jar"))))
            .getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ServerLocalFiles.checkReadable(List.of(dir)));
  }
}
