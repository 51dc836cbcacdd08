package org.apache.gravitino.connector.job;

import java.time.Instant;
import java.util.Objects;
import org.apache.gravitino.job.JobHandle;

/**
 * Declaration of an executor's snapshot of a job. Once a job has started, every later snapshot
 * carries its start time, including the terminal ones. (Gravitino generates this class with
 * Lombok; this is its compiled public API written out.)
 */
public final class JobExecutionInfo {
  private final JobHandle.Status status;
  private final Instant startedAt;
  private final Instant finishedAt;

  private JobExecutionInfo(JobHandle.Status status, Instant startedAt, Instant finishedAt) {
    if (status == null) {
      throw new NullPointerException("status is marked non-null but is null");
    }
    this.status = status;
    this.startedAt = startedAt;
    this.finishedAt = finishedAt;
  }

  public static JobExecutionInfo of(JobHandle.Status status) {
    return new JobExecutionInfo(status, null, null);
  }

  public JobExecutionInfo started(Instant startedAt) {
    if (startedAt == null) {
      throw new IllegalArgumentException("startedAt must not be null");
    }
    return new JobExecutionInfo(status, startedAt, finishedAt);
  }

  public JobExecutionInfo finished(JobHandle.Status terminalStatus, Instant finishedAt) {
    if (terminalStatus != JobHandle.Status.SUCCEEDED
        && terminalStatus != JobHandle.Status.FAILED
        && terminalStatus != JobHandle.Status.CANCELLED) {
      throw new IllegalArgumentException("not a terminal status: " + terminalStatus);
    }
    if (finishedAt == null) {
      throw new IllegalArgumentException("finishedAt must not be null");
    }
    return new JobExecutionInfo(terminalStatus, startedAt, finishedAt);
  }

  public static JobExecutionInfoBuilder builder() {
    return new JobExecutionInfoBuilder();
  }

  public JobExecutionInfoBuilder toBuilder() {
    return new JobExecutionInfoBuilder()
        .withStatus(status)
        .withStartedAt(startedAt)
        .withFinishedAt(finishedAt);
  }

  public JobHandle.Status status() {
    return status;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof JobExecutionInfo)) {
      return false;
    }
    JobExecutionInfo other = (JobExecutionInfo) o;
    return status == other.status
        && Objects.equals(startedAt, other.startedAt)
        && Objects.equals(finishedAt, other.finishedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, startedAt, finishedAt);
  }

  @Override
  public String toString() {
    return "JobExecutionInfo(status=" + status + ", startedAt=" + startedAt + ", finishedAt="
        + finishedAt + ")";
  }

  public static class JobExecutionInfoBuilder {
    private JobHandle.Status status;
    private Instant startedAt;
    private Instant finishedAt;

    JobExecutionInfoBuilder() {}

    public JobExecutionInfoBuilder withStatus(JobHandle.Status status) {
      this.status = status;
      return this;
    }

    public JobExecutionInfoBuilder withStartedAt(Instant startedAt) {
      this.startedAt = startedAt;
      return this;
    }

    public JobExecutionInfoBuilder withFinishedAt(Instant finishedAt) {
      this.finishedAt = finishedAt;
      return this;
    }

    public JobExecutionInfo build() {
      return new JobExecutionInfo(status, startedAt, finishedAt);
    }
  }
}
