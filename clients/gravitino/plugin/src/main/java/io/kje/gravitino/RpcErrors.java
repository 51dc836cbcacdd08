package io.kje.gravitino;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.apache.gravitino.exceptions.NoSuchJobException;

/**
 * Turns the service's gRPC status into the exceptions Gravitino's job manager acts on: an
 * IllegalArgumentException reaches the user as a 400 with its reason, a NoSuchJobException ends a
 * polled job, anything else is logged by Gravitino and retried on its next poll.
 */
final class RpcErrors {
  private RpcErrors() {}

  /**
   * @param rpc the RPC, e.g. "Submit"
   * @param executionId the job's execution id, or null for Submit
   */
  static RuntimeException toException(
      StatusRuntimeException e, String rpc, String executionId, KjeJobExecutorConfig config) {
    Status status = e.getStatus();
    String reason = status.getDescription() == null ? status.getCode().name()
        : status.getDescription();
    String target = config.target();
    switch (status.getCode()) {
      case INVALID_ARGUMENT:
        return new IllegalArgumentException(reason, e);
      case NOT_FOUND:
        // The message is a format string: the service's text goes in as an argument.
        if (executionId != null) {
          return new NoSuchJobException(e, "Job %s not found: %s", executionId, reason);
        }
        return new IllegalArgumentException(reason, e);
      case ALREADY_EXISTS:
        return new IllegalStateException(reason, e);
      case UNAVAILABLE:
        return new RuntimeException(
            "k8s-job-executor at " + target + " is unavailable for " + rpc + " after up to "
                + config.retryMaxAttempts() + " attempts (" + RETRY_KEY + "): " + reason,
            e);
      case DEADLINE_EXCEEDED:
        return new RuntimeException(
            "k8s-job-executor at " + target + " did not answer " + rpc + " within its deadline ("
                + deadlineKey(rpc) + "=" + deadlineMs(rpc, config) + "): " + reason,
            e);
      case UNAUTHENTICATED:
        return new RuntimeException(
            "k8s-job-executor at " + target + " rejected the plugin's credentials on " + rpc
                + " (check " + KjeJobExecutorConfig.TOKEN_FILE + "): " + reason,
            e);
      case UNIMPLEMENTED:
        return new RuntimeException(
            "k8s-job-executor at " + target + " doesn't serve " + rpc + " (a version older than"
                + " the plugin): " + reason,
            e);
      case PERMISSION_DENIED:
        return new RuntimeException(
            "k8s-job-executor at " + target + " denied " + rpc + ": " + reason, e);
      default:
        return new RuntimeException(
            "k8s-job-executor at " + target + " failed " + rpc + " (" + status.getCode() + "): "
                + reason,
            e);
    }
  }

  private static final String RETRY_KEY = KjeJobExecutorConfig.RETRY_MAX_ATTEMPTS;

  static String deadlineKey(String rpc) {
    switch (rpc) {
      case "Submit":
        return KjeJobExecutorConfig.SUBMIT_DEADLINE_MS;
      case "Status":
        return KjeJobExecutorConfig.STATUS_DEADLINE_MS;
      case "Cancel":
        return KjeJobExecutorConfig.CANCEL_DEADLINE_MS;
      case "UploadArtifacts":
        return KjeJobExecutorConfig.UPLOAD_DEADLINE_MS;
      default:
        return KjeJobExecutorConfig.OUTPUT_DEADLINE_MS;
    }
  }

  static long deadlineMs(String rpc, KjeJobExecutorConfig config) {
    switch (rpc) {
      case "Submit":
        return config.submitDeadlineMs();
      case "Status":
        return config.statusDeadlineMs();
      case "Cancel":
        return config.cancelDeadlineMs();
      case "UploadArtifacts":
        return config.uploadDeadlineMs();
      default:
        return config.outputDeadlineMs();
    }
  }
}
