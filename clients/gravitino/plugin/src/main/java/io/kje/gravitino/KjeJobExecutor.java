package io.kje.gravitino;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.kje.jobexecutor.v1.CancelRequest;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.OutputRequest;
import io.kje.jobexecutor.v1.OutputResponse;
import io.kje.jobexecutor.v1.StatusRequest;
import io.kje.jobexecutor.v1.SubmitRequest;
import io.kje.jobexecutor.v1.SubmitResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 * <p>One class for both of Gravitino's SPIs ({@link GravitinoSpi}): compiled against the
 * JobContext-based one, it also implements every method of the one released in Gravitino 1.x,
 * and those methods name no class that only the newer SPI has, so the released Gravitino loads
 * and calls it. There {@link #submitJob(JobTemplate)} reads Gravitino's job id and metalake
 * from the staging directory ({@link StagingLayout}). On either, files only the Gravitino server
 * can read are uploaded to the service first ({@link ServerLocalFiles}, {@link
 * ArtifactUploader}) and the template names the service's references instead.
 *
 * <p>Configure with {@code gravitino.job.executor = kje}, {@code gravitino.jobExecutor.kje.class =
 * io.kje.gravitino.KjeJobExecutor} and the {@code gravitino.jobExecutor.kje.*} keys of {@link
 * KjeJobExecutorConfig}.
 */
public class KjeJobExecutor implements JobExecutor {
  private static final Logger LOG = Logger.getLogger(KjeJobExecutor.class.getName());
  // Start times seen per execution id, so a later snapshot that lacks one still carries it.
  private static final int KNOWN_STARTS = 10_000;

  private final Function<KjeJobExecutorConfig, ManagedChannel> channels;
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
  public KjeJobExecutor() {
    this(Channels::open);
  }

  /** For tests: the channel from {@code channels} instead of the configured target. */
  KjeJobExecutor(Function<KjeJobExecutorConfig, ManagedChannel> channels) {
    this.channels = channels;
  }

  @Override
  public synchronized void initialize(Map<String, String> configs) {
    // First: on a Gravitino with neither SPI nothing else works; a start failing here says why.
    GravitinoSpi.Kind spi = GravitinoSpi.require();
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
    ManagedChannel opened = channels.apply(parsed);
    this.config = parsed;
    this.credentials = creds;
    this.channel = opened;
    LOG.info("k8s-job-executor plugin: calling " + parsed.target() + " on Gravitino's "
        + (spi == GravitinoSpi.Kind.RELEASED ? "released (1.x) JobExecutor SPI"
            : "JobContext-based JobExecutor SPI"));
  }

  private synchronized ManagedChannel channel() {
    if (channel == null) {
      throw new IllegalStateException("The k8s-job-executor plugin is not initialized");
    }
    return channel;
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
    return submit(JobMapping.submitRequest(context, jobTemplate));
  }

  /**
   * What Gravitino 1.x up to 1.3.0 calls, with a template whose files it fetched into {@code
   * <gravitino.job.stagingDir>/<metalake>/<template>/job-<id>/}: that directory names the job
   * (else an id is generated, see {@link StagingLayout}), and the files are uploaded.
   */
  @Override
  @Deprecated
  public String submitJob(JobTemplate jobTemplate) {
    if (jobTemplate == null) {
      throw new IllegalArgumentException("submitJob needs a job template");
    }
    io.kje.jobexecutor.v1.JobTemplate template = JobMapping.template(jobTemplate);
    List<Path> local = ServerLocalFiles.of(template);
    StagingLayout.Job job = StagingLayout.recover(template.getName(), local);
    if (job == null) {
      job = StagingLayout.generated();
      LOG.warning("k8s-job-executor plugin: job template '" + template.getName() + "' names "
          + (local.isEmpty() ? "no local file"
              : "local files outside one <stagingDir>/<metalake>/<template>/job-<id>/ directory")
          + ", so the job's id is a generated " + job.jobId() + " and it has no metalake");
    }
    return submit(JobMapping.submitRequest(job.jobId(), job.metalake(), template));
  }

  /** Uploads the template's server-local files, then submits it naming their references. */
  private String submit(SubmitRequest request) {
    List<Path> local = ServerLocalFiles.of(request.getTemplate());
    if (!local.isEmpty()) {
      ServerLocalFiles.checkReadable(local);
      Map<Path, String> references;
      try {
        references = ArtifactUploader.upload(asyncStub("UploadArtifacts"), local,
            RpcErrors.deadlineMs("UploadArtifacts", config()));
      } catch (StatusRuntimeException e) {
        throw RpcErrors.toException(e, "UploadArtifacts", null, config());
      }
      request = request.toBuilder()
          .setTemplate(ServerLocalFiles.rewrite(request.getTemplate(), references)).build();
    }
    try {
      SubmitResponse response = stub("Submit").submit(request);
      return response.getExecutionId();
    } catch (StatusRuntimeException e) {
      throw RpcErrors.toException(e, "Submit", null, config());
    }
  }

  private JobExecutorGrpc.JobExecutorStub asyncStub(String rpc) {
    ManagedChannel ch = channel();
    TokenFileCredentials creds;
    KjeJobExecutorConfig cfg;
    synchronized (this) {
      creds = credentials;
      cfg = config;
    }
    JobExecutorGrpc.JobExecutorStub s = JobExecutorGrpc.newStub(ch)
        .withDeadlineAfter(RpcErrors.deadlineMs(rpc, cfg), TimeUnit.MILLISECONDS);
    return creds == null ? s : s.withCallCredentials(creds);
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
   * Gravitino 1.x up to 1.3.0 polls through this abstract method of its SPI; on the newer SPI it
   * is what that SPI's default does, getJobExecutionInfo's status. It names no JobExecutionInfo,
   * a class the released Gravitino doesn't have.
   */
  @Override
  public JobHandle.Status getJobStatus(String jobId) throws NoSuchJobException {
    JobInfo info;
    try {
      info = stub("Status").status(StatusRequest.newBuilder().setExecutionId(jobId).build());
    } catch (StatusRuntimeException e) {
      throw RpcErrors.toException(e, "Status", jobId, config());
    }
    return JobMapping.status(info.getStatus(), info.getExecutionId());
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
