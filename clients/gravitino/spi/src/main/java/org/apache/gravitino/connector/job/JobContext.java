package org.apache.gravitino.connector.job;

import com.google.common.base.Preconditions;
import java.io.File;
import org.apache.commons.lang3.StringUtils;
import org.apache.gravitino.annotation.DeveloperApi;

/** Declaration of what Gravitino's job manager tells an executor about the job it submits. */
@DeveloperApi
public final class JobContext {
  private final long jobId;
  private final String metalake;
  private final File stagingDir;

  public JobContext(long jobId, String metalake, File stagingDir) {
    Preconditions.checkArgument(StringUtils.isNotBlank(metalake), "metalake must not be blank");
    Preconditions.checkArgument(stagingDir != null, "stagingDir must not be null");
    this.jobId = jobId;
    this.metalake = metalake;
    this.stagingDir = stagingDir;
  }

  /** Gravitino's job id, not the execution id the executor returns. */
  public long jobId() {
    return jobId;
  }

  public String metalake() {
    return metalake;
  }

  public File stagingDir() {
    return stagingDir;
  }

  @Override
  public String toString() {
    return "JobContext{jobId=" + jobId + ", metalake=" + metalake + ", stagingDir=" + stagingDir
        + "}";
  }
}
