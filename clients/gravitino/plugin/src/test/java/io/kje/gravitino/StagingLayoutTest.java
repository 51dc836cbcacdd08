package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

class StagingLayoutTest {
  private static final Path JOB =
      Paths.get("/tmp/gravitino/jobs/staging/ml/pi/job-688822913391439376");

  @Test
  void theJobDirectoryNamesTheJobAndItsMetalake() {
    StagingLayout.Job job = StagingLayout.recover("pi",
        List.of(JOB.resolve("pi.jar"), JOB.resolve("util.jar"), JOB.resolve("data.txt")));
    assertEquals("688822913391439376", job.jobId());
    assertEquals("ml", job.metalake());
    assertTrue(job.recovered());
    // Any stagingDir: only the last three levels are Gravitino's.
    StagingLayout.Job shallow = StagingLayout.recover("t", List.of(Paths.get("/m/t/job-7/x.py")));
    assertEquals("7", shallow.jobId());
    assertEquals("m", shallow.metalake());
    // A path spelled with dots is the file it names.
    assertEquals("688822913391439376", StagingLayout.recover("pi",
        List.of(JOB.resolve("sub/../pi.jar"))).jobId());
  }

  @Test
  void anythingElseIsNotTheLayout() {
    // Files in two directories, or outside the job's.
    assertNull(StagingLayout.recover("pi", List.of(JOB.resolve("pi.jar"),
        JOB.resolveSibling("job-1").resolve("util.jar"))));
    assertNull(StagingLayout.recover("pi", List.of(JOB.resolve("lib/util.jar"))));
    // The template directory must be the template's name.
    assertNull(StagingLayout.recover("other", List.of(JOB.resolve("pi.jar"))));
    // Not job-<positive long>.
    for (String dir : List.of("job-", "job-0", "job-01", "job-x1", "jobs-1", "job-1a",
        "job-99999999999999999999", "job-9223372036854775808")) {
      assertNull(StagingLayout.recover("pi", List.of(Paths.get("/s/ml/pi", dir, "pi.jar"))), dir);
    }
    assertEquals("9223372036854775807", StagingLayout.recover("pi",
        List.of(Paths.get("/s/ml/pi/job-9223372036854775807/pi.jar"))).jobId());
    // No metalake level, relative paths, nothing localized, no template name.
    assertNull(StagingLayout.recover("pi", List.of(Paths.get("/pi/job-1/pi.jar"))));
    assertNull(StagingLayout.recover("pi", List.of(Paths.get("ml/pi/job-1/pi.jar"))));
    assertNull(StagingLayout.recover("pi", List.of()));
    assertNull(StagingLayout.recover("", List.of(JOB.resolve("pi.jar"))));
  }

  @Test
  void aGeneratedIdHasGravitinosShapeAndNoMetalake() {
    StagingLayout.Job a = StagingLayout.generated();
    StagingLayout.Job b = StagingLayout.generated();
    assertTrue(a.jobId().matches("[1-9][0-9]{0,18}"), a.jobId());
    assertTrue(Long.parseLong(a.jobId()) > 0);
    assertNotEquals(a.jobId(), b.jobId());
    assertEquals("", a.metalake());
    assertFalse(a.recovered());
  }
}
