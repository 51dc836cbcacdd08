package io.kje.gravitino;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.kje.jobexecutor.v1.CancelRequest;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.OutputRequest;
import io.kje.jobexecutor.v1.OutputResponse;
import io.kje.jobexecutor.v1.StatusRequest;
import io.kje.jobexecutor.v1.SubmitResponse;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.connector.job.JobExecutionInfo;
import org.apache.gravitino.connector.job.JobExecutor;
import org.apache.gravitino.exceptions.NoSuchJobException;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.JobTemplate;

/**
 * Gravitino's job executor backed by k8s-job-executor: every call is one RPC to the service, which
 * keeps all job state on the Kubernetes resources. So any Gravitino server answers for any job
 * ({@link #ownsJob} is true, {@link #isJobStateNodeLocal} false), and nothing is lost when one
 * restarts.
 *
 * <p>Configure with {@code gravitino.job.executor = kje}, {@code gravitino.jobExecutor.kje.class =
 * io.kje.gravitino.KjeJobExecutor} and the {@code gravitino.jobExecutor.kje.*} keys of {@link
 * KjeJobExecutorConfig}.
 */
public class KjeJobExecutor implements JobExecutor {
  private static final Logger LOG = Logger.getLogger(KjeJobExecutor.class.getName());
  // Start times seen per execution id, so a later snapshot that lacks one still carries it.
  private static final int KNOWN_STARTS = 10_000;

  private KjeJobExecutorConfig config;
  private ManagedChannel channel;
  private TokenFileCredentials credentials;

  private final Map<String, Instant> knownStarts =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > KNOWN_STARTS;
        }
      };

  /** The no-argument constructor Gravitino's JobExecutorFactory instantiates. */
  public KjeJobExecutor() {}

  @Override
  public synchronized void initialize(Map<String, String> configs) {
    // First: on an older Gravitino nothing else would work, and a start that fails here names why.
    GravitinoSpi.require();
    if (channel != null) {
      throw new IllegalStateException("The k8s-job-executor plugin is already initialized");
    }
    KjeJobExecutorConfig parsed = KjeJobExecutorConfig.parse(configs);
    TokenFileCredentials creds = null;
    if (parsed.tokenFile() != null) {
      try {
        creds = new TokenFileCredentials(parsed.tokenFile().toPath());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            KjeJobExecutorConfig.TOKEN_FILE + " " + parsed.tokenFile() + " holds no usable token: "
                + e.getMessage(),
            e);
      }
    }
    ManagedChannel opened = Channels.open(parsed);
    this.config = parsed;
    this.credentials = creds;
    this.channel = opened;
  }

  private JobExecutorGrpc.JobExecutorBlockingStub stub(String rpc) {
    ManagedChannel ch;
    TokenFileCredentials creds;
    KjeJobExecutorConfig cfg;
    synchronized (this) {
      ch = channel;
      creds = credentials;
      cfg = config;
    }
    if (ch == null) {
      GravitinoSpi.require();
      throw new IllegalStateException("The k8s-job-executor plugin is not initialized");
    }
    JobExecutorGrpc.JobExecutorBlockingStub s =
        JobExecutorGrpc.newBlockingStub(ch)
            .withDeadlineAfter(RpcErrors.deadlineMs(rpc, cfg), TimeUnit.MILLISECONDS);
    return creds == null ? s : s.withCallCredentials(creds);
  }

  private synchronized KjeJobExecutorConfig config() {
    return config;
  }

  @Override
  public String submitJob(JobContext context, JobTemplate jobTemplate) {
    // Mapped (and rejected) before any RPC: an unsupported template never reaches the service.
    io.kje.jobexecutor.v1.SubmitRequest request = JobMapping.submitRequest(context, jobTemplate);
    try {
      SubmitResponse response = stub("Submit").submit(request);
      return response.getExecutionId();
    } catch (StatusRuntimeException e) {
      throw RpcErrors.toException(e, "Submit", null, config());
    }
  }

  /** Gravitino versions without JobContext call this; the service needs Gravitino's job id. */
  @Override
  @Deprecated
  public String submitJob(JobTemplate jobTemplate) {
    String problem = GravitinoSpi.problem();
    throw new UnsupportedOperationException(problem != null ? problem
        : GravitinoSpi.NEEDED + ". This Gravitino called submitJob(JobTemplate) instead");
  }

  @Override
  public JobExecutionInfo getJobExecutionInfo(String jobId) throws NoSuchJobException {
    JobInfo info;
    try {
      info = stub("Status").status(StatusRequest.newBuilder().setExecutionId(jobId).build());
    } catch (StatusRuntimeException e) {
      throw RpcErrors.toException(e, "Status", jobId, config());
    }
    Instant known;
    synchronized (knownStarts) {
      known = knownStarts.get(jobId);
    }
    JobExecutionInfo result = JobMapping.executionInfo(info, known);
    if (result.startedAt() != null) {
      synchronized (knownStarts) {
        knownStarts.put(jobId, result.startedAt());
      }
    }
    return result;
  }

  /**
   * Gravitino 1.3.0 and older poll through this abstract method of their SPI; without it here they
   * would get an AbstractMethodError, an Error that ends their status poll for good. On the newer
   * SPI it is what that SPI's default does.
   */
  @Override
  public JobHandle.Status getJobStatus(String jobId) throws NoSuchJobException {
    // Before anything that names JobExecutionInfo, a class an older Gravitino doesn't have.
    GravitinoSpi.require();
    return getJobExecutionInfo(jobId).status();
  }

  @Override
  public void cancelJob(String jobId) throws NoSuchJobException {
    try {
      stub("Cancel").cancel(CancelRequest.newBuilder().setExecutionId(jobId).build());
    } catch (StatusRuntimeException e) {
      throw RpcErrors.toException(e, "Cancel", jobId, config());
    }
  }

  @Override
  public boolean ownsJob(String jobId) {
    return true;
  }

  @Override
  public boolean isJobStateNodeLocal() {
    return false;
  }

  /** The tail of the driver's log; best effort, so never an exception (empty when unknown). */
  @Override
  public List<String> getJobStdout(String jobId, int maxLines, int maxBytes) {
    try {
      OutputResponse response =
          stub("Output")
              .output(
                  OutputRequest.newBuilder()
                      .setExecutionId(jobId == null ? "" : jobId)
                      .setMaxLines(Math.max(0, maxLines))
                      .setMaxBytes(Math.max(0, maxBytes))
                      .build());
      return Collections.unmodifiableList(new ArrayList<>(response.getLinesList()));
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "No output for job " + jobId, e);
      return Collections.emptyList();
    }
  }

  /** The driver's log merges stderr into stdout. */
  @Override
  public List<String> getJobStderr(String jobId, int maxLines, int maxBytes) {
    return Collections.emptyList();
  }

  @Override
  public void close() {
    ManagedChannel ch;
    long timeoutMs;
    synchronized (this) {
      ch = channel;
      timeoutMs = config == null ? 0 : config.closeTimeoutMs();
      channel = null;
    }
    if (ch == null) {
      return;
    }
    ch.shutdown();
    try {
      if (!ch.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
        LOG.warning("k8s-job-executor plugin: calls still running after closeTimeoutMs="
            + timeoutMs + "; cancelling them");
        ch.shutdownNow();
        ch.awaitTermination(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      ch.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
