package org.apache.gravitino.connector.job;

import java.io.Closeable;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.gravitino.annotation.DeveloperApi;
import org.apache.gravitino.exceptions.NoSuchJobException;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.JobTemplate;

/**
 * Declaration of Gravitino's JobContext-based job-executor SPI. The real default of {@link
 * #submitJob(JobContext, JobTemplate)} first localizes the template's resources into the staging
 * dir; executors that override it (as ours does) never reach that code.
 */
@DeveloperApi
public interface JobExecutor extends Closeable {

  void initialize(Map<String, String> configs);

  default String submitJob(JobContext context, JobTemplate jobTemplate) {
    return submitJob(jobTemplate);
  }

  @Deprecated
  default String submitJob(JobTemplate jobTemplate) {
    throw new UnsupportedOperationException("submitJob(JobTemplate) is not implemented");
  }

  JobExecutionInfo getJobExecutionInfo(String jobId) throws NoSuchJobException;

  default JobHandle.Status getJobStatus(String jobId) throws NoSuchJobException {
    return getJobExecutionInfo(jobId).status();
  }

  void cancelJob(String jobId) throws NoSuchJobException;

  default boolean ownsJob(String jobId) {
    return true;
  }

  default boolean isJobStateNodeLocal() {
    return false;
  }

  default List<String> getJobStdout(String jobId, int maxLines, int maxBytes) {
    return Collections.emptyList();
  }

  default List<String> getJobStderr(String jobId, int maxLines, int maxBytes) {
    return Collections.emptyList();
  }
}
