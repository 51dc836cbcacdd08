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

  @Test
  void theNewestSpiPasses() {
    assertNull(GravitinoSpi.problem());
    assertNull(GravitinoSpi.check(JobExecutor.class));
    GravitinoSpi.require();
  }

  @Test
  void anInterfaceWithoutTheJobContextMethodsIsNamedWithWhatItHas() {
    String message = GravitinoSpi.check(ReleasedShape.class);
    assertTrue(message.startsWith(GravitinoSpi.NEEDED + ". This Gravitino's "
        + ReleasedShape.class.getName() + " (from file:"), message);
    assertTrue(message.endsWith(") lacks submitJob(JobContext, JobTemplate),"
        + " getJobExecutionInfo(String); it declares cancelJob(String), getJobStatus(String),"
        + " initialize(Map), submitJob(JobTemplate)"), message);
  }

  @Test
  void theMessageSaysWhichGravitinoItNeeds() {
    assertEquals("The k8s-job-executor plugin needs Gravitino's JobContext-based JobExecutor SPI"
        + " (JobExecutor#submitJob(JobContext, JobTemplate) and"
        + " JobExecutor#getJobExecutionInfo(String)), which Gravitino 1.3.0 and older don't have;"
        + " run it on a Gravitino newer than 1.3.0 that has that SPI", GravitinoSpi.NEEDED);
  }
}
