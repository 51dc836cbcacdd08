package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.kje.jobexecutor.v1.CancelRequest;
import io.kje.jobexecutor.v1.CancelResponse;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.OutputRequest;
import io.kje.jobexecutor.v1.OutputResponse;
import io.kje.jobexecutor.v1.StatusRequest;
import io.kje.jobexecutor.v1.SubmitRequest;
import io.kje.jobexecutor.v1.SubmitResponse;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.connector.job.JobExecutionInfo;
import org.apache.gravitino.exceptions.NoSuchJobException;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.SparkJobTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin over a real gRPC channel against a scripted service on 127.0.0.1:0: retries,
 * deadlines, the token header and its rotation, error mapping and close.
 */
class KjeJobExecutorTest {
  @TempDir Path dir;

  /** Each RPC answers with the next scripted Status (OK when the script is empty). */
  static final class FakeService extends JobExecutorGrpc.JobExecutorImplBase {
    final ConcurrentLinkedQueue<Status> script = new ConcurrentLinkedQueue<>();
    final AtomicInteger calls = new AtomicInteger();
    final List<SubmitRequest> submits = new CopyOnWriteArrayList<>();
    final ConcurrentLinkedQueue<JobInfo> infos = new ConcurrentLinkedQueue<>();
    volatile boolean hang;

    private boolean fail(StreamObserver<?> out) {
      calls.incrementAndGet();
      if (hang) {
        return true; // never answers
      }
      Status s = script.poll();
      if (s != null && !s.isOk()) {
        out.onError(s.asRuntimeException());
        return true;
      }
      return false;
    }

    @Override
    public void submit(SubmitRequest r, StreamObserver<SubmitResponse> out) {
      if (fail(out)) {
        return;
      }
      submits.add(r);
      out.onNext(SubmitResponse.newBuilder()
          .setExecutionId("default/sparkapp/default/gravitino-job-" + r.getJobId()).build());
      out.onCompleted();
    }

    @Override
    public void status(StatusRequest r, StreamObserver<JobInfo> out) {
      if (fail(out)) {
        return;
      }
      JobInfo info = infos.poll();
      out.onNext(info != null ? info : JobInfo.newBuilder().setExecutionId(r.getExecutionId())
          .setStatus(JobInfo.Status.QUEUED).build());
      out.onCompleted();
    }

    @Override
    public void cancel(CancelRequest r, StreamObserver<CancelResponse> out) {
      if (fail(out)) {
        return;
      }
      out.onNext(CancelResponse.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void output(OutputRequest r, StreamObserver<OutputResponse> out) {
      if (fail(out)) {
        return;
      }
      out.onNext(OutputResponse.newBuilder().addLines("lines=" + r.getMaxLines())
          .addLines("bytes=" + r.getMaxBytes()).build());
      out.onCompleted();
    }
  }

  private final FakeService service = new FakeService();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private Server server;
  private KjeJobExecutor executor;

  @BeforeEach
  void start() throws Exception {
    ServerInterceptor recordAuth =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            String a = headers.get(TokenFileCredentials.AUTHORIZATION);
            authorizations.add(a == null ? "<none>" : a);
            return next.startCall(call, headers);
          }
        };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(service, recordAuth)).build().start();
  }

  @AfterEach
  void stop() throws Exception {
    if (executor != null) {
      executor.close();
    }
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private KjeJobExecutor executor(String... kv) {
    Map<String, String> c = new HashMap<>();
    c.put("target", "127.0.0.1:" + server.getPort());
    c.put("retry.maxAttempts", "3");
    c.put("retry.initialBackoffMs", "10");
    c.put("retry.maxBackoffMs", "20");
    for (int i = 0; i < kv.length; i += 2) {
      c.put(kv[i], kv[i + 1]);
    }
    executor = new KjeJobExecutor();
    executor.initialize(c);
    return executor;
  }

  private static SparkJobTemplate template() {
    return SparkJobTemplate.builder().withName("pi").withExecutable("local:///pi.jar")
        .withClassName("Pi").build();
  }

  private static Timestamp ts(long s) {
    return Timestamp.newBuilder().setSeconds(s).build();
  }

  @Test
  void submitSendsTheGravitinoJobIdAndMetalake() {
    KjeJobExecutor e = executor();
    String id = e.submitJob(new JobContext(42, "lake", new File("/tmp/s")), template());
    assertEquals("default/sparkapp/default/gravitino-job-42", id);
    assertEquals("42", service.submits.get(0).getJobId());
    assertEquals("lake", service.submits.get(0).getMetalake());
    assertEquals("Pi", service.submits.get(0).getTemplate().getSpark().getClassName());
    assertEquals(List.of("<none>"), authorizations);
    assertTrue(e.ownsJob(id));
    assertFalse(e.isJobStateNodeLocal());
  }

  @Test
  void unavailableIsRetriedThenSucceeds() {
    KjeJobExecutor e = executor();
    service.script.add(Status.UNAVAILABLE);
    service.script.add(Status.UNAVAILABLE);
    service.infos.add(JobInfo.newBuilder().setStatus(JobInfo.Status.STARTED)
        .setStartedAt(ts(100)).build());
    JobExecutionInfo info = e.getJobExecutionInfo("x");
    assertEquals(JobHandle.Status.STARTED, info.status());
    assertEquals(3, service.calls.get());
  }

  @Test
  void unavailableAfterEveryAttemptNamesTheTarget() {
    KjeJobExecutor e = executor();
    for (int i = 0; i < 5; i++) {
      service.script.add(Status.UNAVAILABLE.withDescription("k8s api down"));
    }
    RuntimeException ex = assertThrows(RuntimeException.class, () -> e.cancelJob("x"));
    assertTrue(ex.getMessage().contains("127.0.0.1:" + server.getPort()), ex.getMessage());
    assertTrue(ex.getMessage().endsWith("k8s api down"), ex.getMessage());
    assertEquals(3, service.calls.get());
  }

  @Test
  void otherCodesAreNotRetried() {
    KjeJobExecutor e = executor();
    service.script.add(Status.INVALID_ARGUMENT.withDescription("SHELL jobs are not supported"));
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
        () -> e.submitJob(new JobContext(1, "m", new File("/s")), template()));
    assertEquals("SHELL jobs are not supported", ex.getMessage());
    service.script.add(Status.NOT_FOUND.withDescription("gone"));
    assertThrows(NoSuchJobException.class, () -> e.getJobExecutionInfo("x"));
    service.script.add(Status.NOT_FOUND.withDescription("gone"));
    assertThrows(NoSuchJobException.class, () -> e.cancelJob("x"));
    assertEquals(3, service.calls.get());
  }

  @Test
  void aStartedJobKeepsItsStartTime() {
    KjeJobExecutor e = executor();
    service.infos.add(JobInfo.newBuilder().setStatus(JobInfo.Status.STARTED)
        .setStartedAt(ts(100)).build());
    service.infos.add(JobInfo.newBuilder().setStatus(JobInfo.Status.CANCELLED)
        .setFinishedAt(ts(200)).build());
    assertEquals(Instant.ofEpochSecond(100), e.getJobExecutionInfo("j").startedAt());
    JobExecutionInfo done = e.getJobExecutionInfo("j");
    assertEquals(JobHandle.Status.CANCELLED, done.status());
    assertEquals(Instant.ofEpochSecond(100), done.startedAt());
    assertEquals(Instant.ofEpochSecond(200), done.finishedAt());
  }

  @Test
  void getJobStatusIsTheStatusOfTheExecutionInfo() {
    KjeJobExecutor e = executor();
    service.infos.add(JobInfo.newBuilder().setStatus(JobInfo.Status.STARTED)
        .setStartedAt(ts(100)).build());
    assertEquals(JobHandle.Status.STARTED, e.getJobStatus("j"));
    service.script.add(Status.NOT_FOUND.withDescription("gone"));
    assertThrows(NoSuchJobException.class, () -> e.getJobStatus("j"));
    assertThrows(IllegalStateException.class, () -> new KjeJobExecutor().getJobStatus("j"));
  }

  @Test
  void deadlinePerRpc() {
    KjeJobExecutor e = executor("statusDeadlineMs", "200");
    service.hang = true;
    RuntimeException ex = assertThrows(RuntimeException.class, () -> e.getJobExecutionInfo("x"));
    assertTrue(ex.getMessage().contains("did not answer Status within its deadline"
        + " (statusDeadlineMs=200)"), ex.getMessage());
  }

  @Test
  void outputNeverThrows() {
    KjeJobExecutor e = executor();
    assertEquals(List.of("lines=50", "bytes=8192"), e.getJobStdout("x", 50, 8192));
    assertEquals(List.of("lines=0", "bytes=0"), e.getJobStdout("x", -1, -5));
    service.script.add(Status.NOT_FOUND);
    assertEquals(List.of(), e.getJobStdout("unknown", 10, 10));
    assertEquals(List.of(), e.getJobStderr("x", 10, 10));
    service.hang = true;
    executor.close();
    assertEquals(List.of(), e.getJobStdout("x", 10, 10));
  }

  @Test
  void bearerTokenIsSentAndRereadWhenTheFileChanges() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "first-token\n");
    KjeJobExecutor e = executor("tokenFile", token.toString());
    e.cancelJob("x");
    Path next = dir.resolve("token.new");
    Files.writeString(next, "second-token\n");
    Files.move(next, token, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    e.cancelJob("x");
    assertEquals(List.of("Bearer first-token", "Bearer second-token"), authorizations);
    Files.delete(token);
    RuntimeException ex = assertThrows(RuntimeException.class, () -> e.cancelJob("x"));
    assertTrue(ex.getMessage().contains("cannot read the token from tokenFile"), ex.getMessage());
    assertFalse(ex.getMessage().contains("second-token"), ex.getMessage());
  }

  @Test
  void initializeFailsOnAnEmptyTokenFileAndTwice() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "\n");
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
        () -> executor("tokenFile", token.toString()));
    assertTrue(ex.getMessage().startsWith("tokenFile "), ex.getMessage());
    KjeJobExecutor e = executor();
    assertThrows(IllegalStateException.class, () -> e.initialize(Map.of("target", "a:1")));
  }

  @Test
  void callsBeforeInitializeOrAfterCloseFailClearly() {
    KjeJobExecutor e = new KjeJobExecutor();
    assertThrows(IllegalStateException.class, () -> e.getJobExecutionInfo("x"));
    e.close();
    KjeJobExecutor live = executor();
    live.close();
    live.close();
    assertThrows(IllegalStateException.class, () -> live.cancelJob("x"));
  }

  @Test
  void closeEndsAHungCallWithinItsTimeout() throws Exception {
    KjeJobExecutor e = executor("closeTimeoutMs", "100", "statusDeadlineMs", "600000");
    service.hang = true;
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        e.getJobExecutionInfo("x");
      } catch (RuntimeException ex) {
        failure.set(ex);
      }
    });
    caller.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (service.calls.get() == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(1, service.calls.get());
    e.close();
    caller.join(TimeUnit.SECONDS.toMillis(10));
    assertFalse(caller.isAlive(), "close left the call hanging");
    // The channel's shutdownNow ends the call as UNAVAILABLE.
    assertTrue(failure.get() != null
        && failure.get().getMessage().contains("is unavailable for Status")
        && failure.get().getMessage().contains("shutdownNow"), String.valueOf(failure.get()));
  }
}
