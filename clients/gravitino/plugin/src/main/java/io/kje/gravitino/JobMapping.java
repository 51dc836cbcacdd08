package io.kje.gravitino;

import com.google.protobuf.Timestamp;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.ShellJob;
import io.kje.jobexecutor.v1.SparkJob;
import io.kje.jobexecutor.v1.SubmitRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.connector.job.JobExecutionInfo;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.JobTemplate;
import org.apache.gravitino.job.ShellJobTemplate;
import org.apache.gravitino.job.SparkJobTemplate;

/** Pure mapping between Gravitino's SPI types and the service's messages. */
final class JobMapping {
  private JobMapping() {}

  static SubmitRequest submitRequest(JobContext context, JobTemplate template) {
    if (context == null) {
      throw new IllegalArgumentException("submitJob needs a JobContext");
    }
    if (template == null) {
      throw new IllegalArgumentException("submitJob needs a job template");
    }
    return submitRequest(Long.toString(context.jobId()), context.metalake(), template(template));
  }

  static SubmitRequest submitRequest(String jobId, String metalake,
      io.kje.jobexecutor.v1.JobTemplate template) {
    return SubmitRequest.newBuilder()
        .setJobId(jobId)
        .setMetalake(metalake == null ? "" : metalake)
        .setTemplate(template)
        .build();
  }

  static io.kje.jobexecutor.v1.JobTemplate template(JobTemplate t) {
    io.kje.jobexecutor.v1.JobTemplate.Builder b =
        io.kje.jobexecutor.v1.JobTemplate.newBuilder()
            .setName(orEmpty(t.name()))
            .setComment(orEmpty(t.comment()))
            .setExecutable(orEmpty(t.executable()))
            .addAllArguments(list(t.arguments(), "arguments"))
            .putAllEnvironments(map(t.environments(), "environments"))
            .putAllCustomFields(map(t.customFields(), "customFields"));
    if (t instanceof SparkJobTemplate) {
      SparkJobTemplate s = (SparkJobTemplate) t;
      b.setSpark(
          SparkJob.newBuilder()
              .setClassName(orEmpty(s.className()))
              .addAllJars(list(s.jars(), "jars"))
              .addAllFiles(list(s.files(), "files"))
              .addAllArchives(list(s.archives(), "archives"))
              .putAllConfigs(map(s.configs(), "configs")));
    } else if (t instanceof ShellJobTemplate) {
      // The service rejects shell jobs itself, with its reason, which reaches the user.
      b.setShell(ShellJob.newBuilder().addAllScripts(list(((ShellJobTemplate) t).scripts(),
          "scripts")));
    } else {
      Object type;
      try {
        type = t.jobType();
      } catch (RuntimeException e) {
        type = t.getClass().getName();
      }
      throw new IllegalArgumentException(
          "Job template '" + t.name() + "' has job type " + type
              + ", which the k8s-job-executor plugin doesn't run (it runs SPARK jobs)");
    }
    return b.build();
  }

  static JobHandle.Status status(JobInfo.Status s, String executionId) {
    switch (s) {
      case QUEUED:
        return JobHandle.Status.QUEUED;
      case STARTED:
        return JobHandle.Status.STARTED;
      case SUCCEEDED:
        return JobHandle.Status.SUCCEEDED;
      case FAILED:
        return JobHandle.Status.FAILED;
      case CANCELLING:
        return JobHandle.Status.CANCELLING;
      case CANCELLED:
        return JobHandle.Status.CANCELLED;
      default:
        throw new IllegalStateException(
            "k8s-job-executor reported no known status for job " + executionId + " (" + s + ")");
    }
  }

  static boolean isTerminal(JobHandle.Status s) {
    return s == JobHandle.Status.SUCCEEDED
        || s == JobHandle.Status.FAILED
        || s == JobHandle.Status.CANCELLED;
  }

  /**
   * The snapshot Gravitino stores. {@code knownStart} is a start time this plugin saw earlier for
   * the job, used when the service's answer lacks one, so that a started job keeps its start
   * time in every later snapshot; null if none is known.
   */
  static JobExecutionInfo executionInfo(JobInfo info, Instant knownStart) {
    JobHandle.Status status = status(info.getStatus(), info.getExecutionId());
    JobExecutionInfo.JobExecutionInfoBuilder b = JobExecutionInfo.builder().withStatus(status);
    if (status != JobHandle.Status.QUEUED) {
      if (info.hasStartedAt()) {
        b.withStartedAt(instant(info.getStartedAt()));
      } else if (knownStart != null) {
        b.withStartedAt(knownStart);
      }
    }
    if (isTerminal(status) && info.hasFinishedAt()) {
      b.withFinishedAt(instant(info.getFinishedAt()));
    }
    return b.build();
  }

  static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static List<String> list(List<String> l, String field) {
    if (l == null) {
      return List.of();
    }
    for (String s : l) {
      if (s == null) {
        throw new IllegalArgumentException("The job template's " + field + " contain a null");
      }
    }
    return l;
  }

  private static Map<String, String> map(Map<String, String> m, String field) {
    if (m == null) {
      return Map.of();
    }
    for (Map.Entry<String, String> e : m.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new IllegalArgumentException(
            "The job template's " + field + " contain a null key or value");
      }
    }
    return m;
  }
}
