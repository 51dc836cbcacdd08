package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.util.Map;
import org.apache.gravitino.connector.job.JobExecutor;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.JobTemplate;
import org.junit.jupiter.api.Test;

class GravitinoSpiTest {
  /** The shape of the released interface, for the check alone (the real one: see it/). */
  interface ReleasedShape extends Closeable {
    void initialize(Map<String, String> configs);

    String submitJob(JobTemplate jobTemplate);

    JobHandle.Status getJobStatus(String jobId);

    void cancelJob(String jobId);
  }

  /** Neither: no way to submit. */
  interface NoSubmit extends Closeable {
    void initialize(Map<String, String> configs);

    JobHandle.Status getJobStatus(String jobId);

    void cancelJob(String jobId);
  }

  @Test
  void theNewestSpiIsTheJobContextOne() {
    assertNull(GravitinoSpi.problem());
    assertEquals(GravitinoSpi.Kind.JOB_CONTEXT, GravitinoSpi.kind());
    assertEquals(GravitinoSpi.Kind.JOB_CONTEXT, GravitinoSpi.check(JobExecutor.class).kind);
    assertEquals(GravitinoSpi.Kind.JOB_CONTEXT, GravitinoSpi.require());
  }

  @Test
  void theReleasedShapeIsTheReleasedSpi() {
    GravitinoSpi.Found found = GravitinoSpi.check(ReleasedShape.class);
    assertEquals(GravitinoSpi.Kind.RELEASED, found.kind);
    assertNull(found.problem);
  }

  @Test
  void anInterfaceWithNeitherIsNamedWithWhatItHas() {
    GravitinoSpi.Found found = GravitinoSpi.check(NoSubmit.class);
    assertNull(found.kind);
    assertTrue(found.problem.startsWith(GravitinoSpi.NEEDED + ". This Gravitino's "
        + NoSubmit.class.getName() + " (from file:"), found.problem);
    assertTrue(found.problem.endsWith(") lacks submitJob(JobTemplate); it declares"
        + " cancelJob(String), getJobStatus(String), initialize(Map)"), found.problem);
  }

  @Test
  void theMessageSaysWhichSpisItRunsOn() {
    assertEquals("The k8s-job-executor plugin needs Gravitino's JobExecutor SPI, either as"
        + " released in Gravitino 1.x (JobExecutor#submitJob(JobTemplate), getJobStatus(String),"
        + " cancelJob(String)) or JobContext-based (JobExecutor#submitJob(JobContext,"
        + " JobTemplate), getJobExecutionInfo(String), cancelJob(String))", GravitinoSpi.NEEDED);
  }
}
