package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.kje.jobexecutor.v1.SubmitRequest;
import io.kje.jobexecutor.v1.UploadArtifactsResponse;
import io.kje.jobexecutor.v1.UploadedArtifact;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.SparkJobTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Submits with server-local files, on both SPIs, against a fake service over grpc-java's
 * in-process transport: what the plugin uploads (headers, bytes, chunks), what it submits, and
 * how a refused upload ends the submit before anything is created.
 */
class UploadOnSubmitTest {
  @TempDir Path staging;
  private InProcessService service;
  private KjeJobExecutor executor;
  private Path jobDir;
  private byte[] jar;
  private byte[] py;

  @BeforeEach
  void start() throws Exception {
    service = new InProcessService();
    executor = service.executor(Map.of());
    // As Gravitino 1.3.0's job manager lays a job out: <stagingDir>/<metalake>/<template>/job-<id>.
    jobDir = Files.createDirectories(staging.resolve("ml/pi/job-688822913391439376"));
    // Several chunks, the last one partial: flow control and chunking both get exercised.
    jar = new byte[2 * ArtifactUploader.CHUNK_BYTES + 1234];
    new Random(7).nextBytes(jar);
    Files.write(jobDir.resolve("pi.jar"), jar);
    py = "print('pi')\n".getBytes(StandardCharsets.UTF_8);
    Files.write(jobDir.resolve("helper.py"), py);
  }

  @AfterEach
  void stop() throws Exception {
    executor.close();
    service.close();
  }

  /** The template as the released job manager hands it over: every file a local path. */
  private SparkJobTemplate localized(String... extraJars) {
    List<String> jars = new ArrayList<>(List.of(jobDir.resolve("pi.jar").toString()));
    jars.addAll(List.of(extraJars));
    return SparkJobTemplate.builder().withName("pi")
        .withExecutable(jobDir.resolve("pi.jar").toString()).withClassName("Pi")
        .withJars(jars).withFiles(List.of(jobDir.resolve("helper.py").toString()))
        .withArguments(List.of("100")).build();
  }

  @Test
  @SuppressWarnings("deprecation")
  void releasedSpiRecoversTheJobAndUploadsItsFilesOnce() throws Exception {
    String id = executor.submitJob(localized("local:///opt/spark/jars/extra.jar"));
    assertEquals("default/sparkapp/default/gravitino-job-688822913391439376", id);

    assertEquals(1, service.uploadCalls.size());
    List<InProcessService.Upload> files = service.uploadCalls.get(0);
    assertEquals(2, files.size());
    assertEquals("pi.jar", files.get(0).header.getName());
    assertEquals(jar.length, files.get(0).header.getSize());
    assertEquals(InProcessService.sha256(jar), files.get(0).header.getSha256());
    assertEquals(ByteString.copyFrom(jar), files.get(0).bytes);
    assertEquals(List.of(ArtifactUploader.CHUNK_BYTES, ArtifactUploader.CHUNK_BYTES, 1234),
        files.get(0).chunkSizes);
    assertEquals("helper.py", files.get(1).header.getName());
    assertEquals(ByteString.copyFrom(py), files.get(1).bytes);

    SubmitRequest submit = service.submits.get(0);
    assertEquals("688822913391439376", submit.getJobId());
    assertEquals("ml", submit.getMetalake());
    String jarRef = InProcessService.reference(InProcessService.sha256(jar), "pi.jar");
    String pyRef = InProcessService.reference(InProcessService.sha256(py), "helper.py");
    assertEquals(jarRef, submit.getTemplate().getExecutable());
    assertEquals(List.of(jarRef, "local:///opt/spark/jars/extra.jar"),
        submit.getTemplate().getSpark().getJarsList());
    assertEquals(List.of(pyRef), submit.getTemplate().getSpark().getFilesList());
    assertEquals(List.of("100"), submit.getTemplate().getArgumentsList());
    assertEquals("Pi", submit.getTemplate().getSpark().getClassName());
  }

  @Test
  @SuppressWarnings("deprecation")
  void aRetriedSubmitIsTheSameJobAndItsFilesAreStoredOnce() {
    String first = executor.submitJob(localized());
    String second = executor.submitJob(localized());
    assertEquals(first, second);
    assertEquals(service.submits.get(0), service.submits.get(1));
    assertEquals(2, service.store.size());
  }

  @Test
  @SuppressWarnings("deprecation")
  void filesOutsideTheLayoutGetAGeneratedIdAndAreStillUploaded() throws Exception {
    Path elsewhere = Files.write(staging.resolve("other.jar"), new byte[] {1, 2, 3});
    executor.submitJob(localized(elsewhere.toString()));
    executor.submitJob(localized(elsewhere.toString()));
    SubmitRequest a = service.submits.get(0);
    SubmitRequest b = service.submits.get(1);
    assertTrue(a.getJobId().matches("[1-9][0-9]{0,18}"), a.getJobId());
    assertFalse(a.getJobId().equals(b.getJobId()), "each runJob is its own job");
    assertEquals("", a.getMetalake());
    assertEquals(InProcessService.reference(InProcessService.sha256(new byte[] {1, 2, 3}),
        "other.jar"), a.getTemplate().getSpark().getJars(1));
    assertEquals(3, service.uploadCalls.get(0).size());
  }

  @Test
  void newerSpiKeepsUrisTheClusterReachesAndUploadsServerLocalOnes() throws Exception {
    SparkJobTemplate remote = SparkJobTemplate.builder().withName("pi")
        .withExecutable("local:///opt/spark/examples/jars/spark-examples.jar").withClassName("Pi")
        .withJars(List.of("https://repo/x.jar")).build();
    executor.submitJob(new JobContext(42, "ml", staging.toFile()), remote);
    assertEquals(0, service.uploadCalls.size(), "nothing to upload: no call at all");
    assertEquals("local:///opt/spark/examples/jars/spark-examples.jar",
        service.submits.get(0).getTemplate().getExecutable());
    assertEquals("42", service.submits.get(0).getJobId());

    SparkJobTemplate local = SparkJobTemplate.builder().withName("pi")
        .withExecutable(jobDir.resolve("pi.jar").toUri().toString()).withClassName("Pi")
        .withFiles(List.of(jobDir.resolve("helper.py").toString())).build();
    executor.submitJob(new JobContext(43, "ml", new File("/unused")), local);
    SubmitRequest submit = service.submits.get(1);
    assertEquals("43", submit.getJobId(), "the context's id, not the directory's");
    assertEquals(InProcessService.reference(InProcessService.sha256(jar), "pi.jar"),
        submit.getTemplate().getExecutable());
    assertEquals(List.of(InProcessService.reference(InProcessService.sha256(py), "helper.py")),
        submit.getTemplate().getSpark().getFilesList());
  }

  @Test
  @SuppressWarnings("deprecation")
  void aRefusedUploadSubmitsNothing() {
    service.uploadScript.add(Status.INVALID_ARGUMENT.withDescription("artifact pi.jar is larger"
        + " than upload.maxFileBytes"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> executor.submitJob(localized()));
    assertEquals("artifact pi.jar is larger than upload.maxFileBytes", e.getMessage());
    assertEquals(List.of(), service.submits);

    service.uploadScript.add(Status.UNIMPLEMENTED.withDescription("Method not found"));
    RuntimeException old = assertThrows(RuntimeException.class,
        () -> executor.submitJob(localized()));
    assertEquals("k8s-job-executor at in-process:1 doesn't serve UploadArtifacts (a version older"
        + " than the plugin): Method not found", old.getMessage());
    assertEquals(List.of(), service.submits);
  }

  @Test
  @SuppressWarnings("deprecation")
  void anUnansweredUploadEndsAtItsDeadline() {
    service.hangUploads = true;
    KjeJobExecutor impatient = service.executor(Map.of("uploadDeadlineMs", "300"));
    try {
      RuntimeException e = assertThrows(RuntimeException.class,
          () -> impatient.submitJob(localized()));
      assertTrue(e.getMessage().startsWith("k8s-job-executor at in-process:1 did not answer"
          + " UploadArtifacts within its deadline (uploadDeadlineMs=300)"), e.getMessage());
    } finally {
      impatient.close();
    }
    assertEquals(List.of(), service.submits);
  }

  @Test
  @SuppressWarnings("deprecation")
  void anAnswerThatDoesntMatchWhatWasSentSubmitsNothing() {
    service.cannedAnswer = UploadArtifactsResponse.newBuilder()
        .addArtifacts(UploadedArtifact.newBuilder().setName("pi.jar").setSha256("00")
            .setReference("r")).build();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> executor.submitJob(localized()));
    assertEquals("k8s-job-executor answered UploadArtifacts with 1 artifacts for 2 files",
        e.getMessage());
    assertEquals(List.of(), service.submits);
  }

  @Test
  @SuppressWarnings("deprecation")
  void aMissingFileFailsBeforeAnyCall() throws Exception {
    Files.delete(jobDir.resolve("helper.py"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> executor.submitJob(localized()));
    assertEquals("The job template names " + jobDir.resolve("helper.py") + ", which is not a file"
        + " on the Gravitino server", e.getMessage());
    assertEquals(0, service.uploadCalls.size());
    assertEquals(List.of(), service.submits);
  }

  @Test
  @SuppressWarnings("deprecation")
  void theUploadCarriesTheBearerTokenAsEveryCallDoes() throws Exception {
    Path token = Files.write(staging.resolve("token"), "s3cret\n".getBytes(StandardCharsets.UTF_8));
    KjeJobExecutor withToken = service.executor(Map.of("tokenFile", token.toString()));
    try {
      withToken.submitJob(localized());
    } finally {
      withToken.close();
    }
    assertEquals(List.of("UploadArtifacts Bearer s3cret", "Submit Bearer s3cret"),
        service.authorizations);
  }

  @Test
  void getJobStatusAnswersWithoutTheNewerSpisTypes() {
    assertEquals(JobHandle.Status.SUCCEEDED, executor.getJobStatus("default/sparkapp/default/j"));
  }
}
