package io.kje.gravitino;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.kje.jobexecutor.v1.ArtifactHeader;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.kje.jobexecutor.v1.JobInfo;
import io.kje.jobexecutor.v1.StatusRequest;
import io.kje.jobexecutor.v1.SubmitRequest;
import io.kje.jobexecutor.v1.SubmitResponse;
import io.kje.jobexecutor.v1.UploadArtifactsRequest;
import io.kje.jobexecutor.v1.UploadArtifactsResponse;
import io.kje.jobexecutor.v1.UploadedArtifact;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A fake of the service in this process (grpc-java's in-process transport, with its flow
 * control): Submit records its request; UploadArtifacts checks each file's size and SHA-256 as the
 * service does and answers content-addressed references, storing each content once.
 */
final class InProcessService extends JobExecutorGrpc.JobExecutorImplBase implements AutoCloseable {
  /** One received file. */
  static final class Upload {
    final ArtifactHeader header;
    final ByteString bytes;
    final List<Integer> chunkSizes;

    Upload(ArtifactHeader header, ByteString bytes, List<Integer> chunkSizes) {
      this.header = header;
      this.bytes = bytes;
      this.chunkSizes = chunkSizes;
    }
  }

  /** "<method> <authorization header>" per call. */
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  final List<SubmitRequest> submits = new CopyOnWriteArrayList<>();
  final List<List<Upload>> uploadCalls = new CopyOnWriteArrayList<>();
  final Map<String, ByteString> store = new ConcurrentHashMap<>();
  /** Next answers of UploadArtifacts: a Status to fail with, or OK to answer normally. */
  final ConcurrentLinkedQueue<Status> uploadScript = new ConcurrentLinkedQueue<>();
  /** When set, uploads are read but never answered. */
  volatile boolean hangUploads;
  /** When set, the answer to the next upload, whatever was sent. */
  volatile UploadArtifactsResponse cannedAnswer;
  private final String name = "kje-" + UUID.randomUUID();
  private final Server server;

  InProcessService() throws IOException {
    ServerInterceptor recordAuth = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String a = headers.get(TokenFileCredentials.AUTHORIZATION);
        authorizations.add(call.getMethodDescriptor().getBareMethodName() + " "
            + (a == null ? "<none>" : a));
        return next.startCall(call, headers);
      }
    };
    server = InProcessServerBuilder.forName(name)
        .addService(ServerInterceptors.intercept(this, recordAuth)).build().start();
  }

  ManagedChannel channel() {
    return InProcessChannelBuilder.forName(name).build();
  }

  /** A plugin whose channel is this service's. */
  KjeJobExecutor executor(Map<String, String> extra) {
    KjeJobExecutor e = new KjeJobExecutor(config -> channel());
    Map<String, String> c = new HashMap<>(Map.of("target", "in-process:1"));
    c.putAll(extra);
    e.initialize(c);
    return e;
  }

  static String reference(String sha256, String name) {
    return "kje-artifact:" + sha256 + "/" + name;
  }

  static String sha256(byte[] bytes) throws Exception {
    StringBuilder hex = new StringBuilder();
    for (byte b : MessageDigest.getInstance("SHA-256").digest(bytes)) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString();
  }

  @Override
  public void submit(SubmitRequest r, StreamObserver<SubmitResponse> out) {
    submits.add(r);
    out.onNext(SubmitResponse.newBuilder()
        .setExecutionId("default/sparkapp/default/gravitino-job-" + r.getJobId()).build());
    out.onCompleted();
  }

  @Override
  public void status(StatusRequest r, StreamObserver<JobInfo> out) {
    out.onNext(JobInfo.newBuilder().setExecutionId(r.getExecutionId())
        .setStatus(JobInfo.Status.SUCCEEDED).build());
    out.onCompleted();
  }

  @Override
  public StreamObserver<UploadArtifactsRequest> uploadArtifacts(
      StreamObserver<UploadArtifactsResponse> out) {
    List<Upload> received = new ArrayList<>();
    uploadCalls.add(received);
    Status scripted = uploadScript.poll();
    return new StreamObserver<>() {
      ArtifactHeader header;
      ByteString.Output bytes;
      List<Integer> chunks;
      UploadArtifactsResponse.Builder answer = UploadArtifactsResponse.newBuilder();
      boolean failed;

      private boolean finishFile() {
        if (header == null) {
          return true;
        }
        ByteString got = bytes.toByteString();
        received.add(new Upload(header, got, chunks));
        String sha;
        try {
          sha = sha256(got.toByteArray());
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        if (got.size() != header.getSize() || !sha.equals(header.getSha256())) {
          failed = true;
          out.onError(Status.INVALID_ARGUMENT.withDescription("artifact " + header.getName()
              + ": the bytes received don't match its size and SHA-256").asRuntimeException());
          return false;
        }
        boolean had = store.putIfAbsent(sha, got) != null;
        answer.addArtifacts(UploadedArtifact.newBuilder().setName(header.getName())
            .setSha256(sha).setSize(got.size()).setReference(reference(sha, header.getName()))
            .setAlreadyStored(had));
        header = null;
        return true;
      }

      @Override
      public void onNext(UploadArtifactsRequest r) {
        if (failed) {
          return;
        }
        if (scripted != null && !scripted.isOk()) {
          failed = true;
          out.onError(scripted.asRuntimeException());
          return;
        }
        if (r.hasHeader()) {
          if (!finishFile()) {
            return;
          }
          header = r.getHeader();
          bytes = ByteString.newOutput();
          chunks = new ArrayList<>();
        } else {
          chunks.add(r.getData().size());
          byte[] data = r.getData().toByteArray();
          bytes.write(data, 0, data.length);
        }
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        if (failed || !finishFile() || hangUploads) {
          return;
        }
        UploadArtifactsResponse canned = cannedAnswer;
        out.onNext(canned != null ? canned : answer.build());
        out.onCompleted();
      }
    };
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
