package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.SubmitRequest;
import java.io.File;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.connector.job.JobExecutionInfo;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.JobTemplate;
import org.apache.gravitino.job.ShellJobTemplate;
import org.apache.gravitino.job.SparkJobTemplate;
import org.junit.jupiter.api.Test;

class JobMappingTest {
  private static final JobContext CONTEXT =
      new JobContext(688822913391439376L, "lake", new File("/tmp/staging/job-1"));

  /** A job type this plugin doesn't know, as a future Gravitino's HTTP template would be. */
  static final class OtherJobTemplate extends JobTemplate {
    OtherJobTemplate(Builder b) {
      super(b);
    }

    @Override
    public JobType jobType() {
      return JobType.SHELL;
    }

    static final class Builder extends JobTemplate.BaseBuilder<Builder, OtherJobTemplate> {
      @Override
      protected Builder self() {
        return this;
      }

      @Override
      public OtherJobTemplate build() {
        validate();
        return new OtherJobTemplate(this);
      }
    }
  }

  @Test
  void sparkTemplate() {
    SparkJobTemplate t =
        SparkJobTemplate.builder()
            .withName("spark-pi")
            .withComment("SparkPi")
            .withExecutable("local:///opt/spark/examples/jars/spark-examples.jar")
            .withArguments(List.of("100", "%s"))
            .withEnvironments(Map.of("A", "1"))
            .withCustomFields(Map.of("team", "x"))
            .withClassName("org.apache.spark.examples.SparkPi")
            .withJars(List.of("s3a://b/dep.jar"))
            .withFiles(List.of("s3a://b/f.txt"))
            .withArchives(List.of("s3a://b/a.zip"))
            .withConfigs(Map.of("spark.executor.instances", "2"))
            .build();
    SubmitRequest r = JobMapping.submitRequest(CONTEXT, t);
    assertEquals("688822913391439376", r.getJobId());
    assertEquals("lake", r.getMetalake());
    assertEquals("spark-pi", r.getTemplate().getName());
    assertEquals("SparkPi", r.getTemplate().getComment());
    assertEquals("local:///opt/spark/examples/jars/spark-examples.jar",
        r.getTemplate().getExecutable());
    assertEquals(List.of("100", "%s"), r.getTemplate().getArgumentsList());
    assertEquals(Map.of("A", "1"), r.getTemplate().getEnvironmentsMap());
    assertEquals(Map.of("team", "x"), r.getTemplate().getCustomFieldsMap());
    assertTrue(r.getTemplate().hasSpark());
    assertEquals("org.apache.spark.examples.SparkPi", r.getTemplate().getSpark().getClassName());
    assertEquals(List.of("s3a://b/dep.jar"), r.getTemplate().getSpark().getJarsList());
    assertEquals(List.of("s3a://b/f.txt"), r.getTemplate().getSpark().getFilesList());
    assertEquals(List.of("s3a://b/a.zip"), r.getTemplate().getSpark().getArchivesList());
    assertEquals(Map.of("spark.executor.instances", "2"),
        r.getTemplate().getSpark().getConfigsMap());
  }

  @Test
  void pythonSparkTemplateWithoutClassOrComment() {
    SparkJobTemplate t =
        SparkJobTemplate.builder().withName("py").withExecutable("local:///app.py").build();
    SubmitRequest r = JobMapping.submitRequest(CONTEXT, t);
    assertEquals("", r.getTemplate().getSpark().getClassName());
    assertEquals("", r.getTemplate().getComment());
    assertTrue(r.getTemplate().getArgumentsList().isEmpty());
  }

  @Test
  void shellTemplateGoesToTheServiceWhichJudgesIt() {
    ShellJobTemplate t =
        ShellJobTemplate.builder()
            .withName("sh")
            .withExecutable("/bin/run.sh")
            .withScripts(List.of("/bin/lib.sh"))
            .build();
    SubmitRequest r = JobMapping.submitRequest(CONTEXT, t);
    assertTrue(r.getTemplate().hasShell());
    assertEquals(List.of("/bin/lib.sh"), r.getTemplate().getShell().getScriptsList());
  }

  @Test
  void unknownTemplateTypeIsAnIllegalArgument() {
    OtherJobTemplate t =
        new OtherJobTemplate.Builder().withName("web").withExecutable("https://x").build();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> JobMapping.submitRequest(CONTEXT, t));
    assertTrue(e.getMessage().contains("'web'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> JobMapping.submitRequest(CONTEXT, null));
    assertThrows(IllegalArgumentException.class, () -> JobMapping.submitRequest(null, t));
  }

  private static Timestamp ts(long seconds, int nanos) {
    return Timestamp.newBuilder().setSeconds(seconds).setNanos(nanos).build();
  }

  @Test
  void everyStatus() {
    JobInfo.Status[] in = {JobInfo.Status.QUEUED, JobInfo.Status.STARTED, JobInfo.Status.SUCCEEDED,
        JobInfo.Status.FAILED, JobInfo.Status.CANCELLING, JobInfo.Status.CANCELLED};
    JobHandle.Status[] out = {JobHandle.Status.QUEUED, JobHandle.Status.STARTED,
        JobHandle.Status.SUCCEEDED, JobHandle.Status.FAILED, JobHandle.Status.CANCELLING,
        JobHandle.Status.CANCELLED};
    for (int i = 0; i < in.length; i++) {
      assertEquals(out[i], JobMapping.status(in[i], "id"));
    }
    assertThrows(IllegalStateException.class,
        () -> JobMapping.status(JobInfo.Status.STATUS_UNSPECIFIED, "id"));
    assertThrows(IllegalStateException.class,
        () -> JobMapping.executionInfo(JobInfo.newBuilder().setStatusValue(42).build(), null));
  }

  @Test
  void timesOfASucceededJob() {
    JobInfo info = JobInfo.newBuilder().setStatus(JobInfo.Status.SUCCEEDED)
        .setStartedAt(ts(1000, 0)).setFinishedAt(ts(1010, 5)).build();
    JobExecutionInfo e = JobMapping.executionInfo(info, null);
    assertEquals(JobHandle.Status.SUCCEEDED, e.status());
    assertEquals(Instant.ofEpochSecond(1000), e.startedAt());
    assertEquals(Instant.ofEpochSecond(1010, 5), e.finishedAt());
  }

  @Test
  void queuedCarriesNoTimesAndRunningNoFinish() {
    JobInfo queued = JobInfo.newBuilder().setStatus(JobInfo.Status.QUEUED)
        .setStartedAt(ts(1000, 0)).setFinishedAt(ts(1010, 0)).build();
    JobExecutionInfo q = JobMapping.executionInfo(queued, Instant.ofEpochSecond(5));
    assertNull(q.startedAt());
    assertNull(q.finishedAt());
    JobInfo running = JobInfo.newBuilder().setStatus(JobInfo.Status.STARTED)
        .setStartedAt(ts(1000, 0)).setFinishedAt(ts(1010, 0)).build();
    JobExecutionInfo r = JobMapping.executionInfo(running, null);
    assertEquals(Instant.ofEpochSecond(1000), r.startedAt());
    assertNull(r.finishedAt());
  }

  @Test
  void aKnownStartFillsALaterSnapshotThatLacksOne() {
    Instant known = Instant.ofEpochSecond(900);
    JobInfo cancelled = JobInfo.newBuilder().setStatus(JobInfo.Status.CANCELLED)
        .setFinishedAt(ts(1010, 0)).build();
    assertEquals(known, JobMapping.executionInfo(cancelled, known).startedAt());
    assertNull(JobMapping.executionInfo(cancelled, null).startedAt());
    // The service's own time wins over the remembered one.
    JobInfo done = cancelled.toBuilder().setStartedAt(ts(950, 0)).build();
    assertEquals(Instant.ofEpochSecond(950), JobMapping.executionInfo(done, known).startedAt());
    assertFalse(JobMapping.isTerminal(JobHandle.Status.CANCELLING));
  }
}
