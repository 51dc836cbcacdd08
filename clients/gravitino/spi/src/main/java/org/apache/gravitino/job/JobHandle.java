package org.apache.gravitino.job;

import java.time.Instant;

/** Declaration of Gravitino's job handle (client API); the plugin uses only its Status. */
public interface JobHandle {
  String JOB_ID_PREFIX = "job-";

  enum Status {
    QUEUED,
    STARTED,
    FAILED,
    SUCCEEDED,
    CANCELLING,
    CANCELLED;
  }

  String jobTemplateName();

  String jobId();

  Status jobStatus();

  default Instant queuedAt() {
    throw new UnsupportedOperationException("queuedAt");
  }

  default Instant startedAt() {
    throw new UnsupportedOperationException("startedAt");
  }

  default Instant finishedAt() {
    throw new UnsupportedOperationException("finishedAt");
  }
}
