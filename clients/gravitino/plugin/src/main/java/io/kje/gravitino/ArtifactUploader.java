package io.kje.gravitino;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.kje.jobexecutor.v1.ArtifactHeader;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.kje.jobexecutor.v1.UploadArtifactsRequest;
import io.kje.jobexecutor.v1.UploadArtifactsResponse;
import io.kje.jobexecutor.v1.UploadedArtifact;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Uploads a job's server-local files in one UploadArtifacts call: per file a header with its name,
 * size and SHA-256, then its bytes in chunks, sent only while the transport has room for them (so
 * a large jar never piles up in memory); the answer's references replace the paths.
 *
 * <p>Gravitino calls {@code submitJob} on its own thread and waits for it, so the upload blocks
 * that thread until the service answers or the call's deadline ({@code uploadDeadlineMs}) ends
 * it.
 */
final class ArtifactUploader {
  private ArtifactUploader() {}

  static final int CHUNK_BYTES = 256 * 1024;

  /** What the header of a file says. */
  static final class Digest {
    final long size;
    final String sha256;

    Digest(long size, String sha256) {
      this.size = size;
      this.sha256 = sha256;
    }
  }

  static Digest digest(Path file) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("This JVM has no SHA-256", e);
    }
    long size = 0;
    byte[] buf = new byte[CHUNK_BYTES];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        sha.update(buf, 0, n);
        size += n;
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("Can't read " + file + " to upload it: " + e, e);
    }
    StringBuilder hex = new StringBuilder(64);
    for (byte b : sha.digest()) {
      hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return new Digest(size, hex.toString());
  }

  /**
   * Uploads {@code files} (distinct names) through {@code stub}, which carries the call's
   * deadline ({@code deadlineMs}) and credentials; returns each path's reference, in order.
   *
   * @throws StatusRuntimeException the service's answer when it refused the upload
   */
  static Map<Path, String> upload(JobExecutorGrpc.JobExecutorStub stub, List<Path> files,
      long deadlineMs) {
    Map<Path, Digest> digests = new LinkedHashMap<>();
    for (Path f : files) {
      digests.put(f, digest(f));
    }
    // The call's own deadline ends it first; this bound, a little later, only keeps a transport
    // that never reports the end from holding Gravitino's thread.
    Call call = new Call(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs)
        + TimeUnit.SECONDS.toNanos(5));
    stub.uploadArtifacts(call);
    byte[] buf = new byte[CHUNK_BYTES];
    try {
      for (Map.Entry<Path, Digest> e : digests.entrySet()) {
        Digest d = e.getValue();
        call.send(UploadArtifactsRequest.newBuilder().setHeader(ArtifactHeader.newBuilder()
            .setName(e.getKey().getFileName().toString()).setSize(d.size).setSha256(d.sha256))
            .build());
        long sent = 0;
        try (InputStream in = Files.newInputStream(e.getKey())) {
          for (int n; sent < d.size && (n = in.read(buf, 0, (int) Math.min(buf.length,
              d.size - sent))) > 0; ) {
            call.send(UploadArtifactsRequest.newBuilder().setData(ByteString.copyFrom(buf, 0, n))
                .build());
            sent += n;
          }
          if (sent != d.size || in.read() >= 0) {
            throw new IllegalArgumentException(e.getKey() + " changed while it was uploaded");
          }
        } catch (IOException io) {
          throw new IllegalArgumentException("Can't read " + e.getKey() + " to upload it: " + io,
              io);
        }
      }
      call.requests().onCompleted();
      return references(digests, call.await());
    } catch (RuntimeException e) {
      call.cancel(e);
      throw e;
    }
  }

  private static Map<Path, String> references(Map<Path, Digest> sent,
      UploadArtifactsResponse response) {
    List<UploadedArtifact> answered = response.getArtifactsList();
    if (answered.size() != sent.size()) {
      throw new IllegalStateException("k8s-job-executor answered UploadArtifacts with "
          + answered.size() + " artifacts for " + sent.size() + " files");
    }
    Map<Path, String> references = new LinkedHashMap<>();
    int i = 0;
    for (Map.Entry<Path, Digest> e : sent.entrySet()) {
      UploadedArtifact a = answered.get(i++);
      if (!a.getSha256().equals(e.getValue().sha256) || a.getReference().isEmpty()) {
        throw new IllegalStateException("k8s-job-executor answered UploadArtifacts for "
            + e.getKey().getFileName() + " with " + (a.getReference().isEmpty()
                ? "no reference" : "SHA-256 " + a.getSha256() + ", not " + e.getValue().sha256));
      }
      references.put(e.getKey(), a.getReference());
    }
    return references;
  }

  /** One call's state; its callbacks only record and wake, never call out. */
  private static final class Call
      implements ClientResponseObserver<UploadArtifactsRequest, UploadArtifactsResponse> {
    private final Object lock = new Object();
    private final long deadlineNanos;
    private ClientCallStreamObserver<UploadArtifactsRequest> requests;
    private long readyEvents;
    private UploadArtifactsResponse response;
    private Throwable error;
    private boolean done;

    Call(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<UploadArtifactsRequest> stream) {
      synchronized (lock) {
        requests = stream;
      }
      stream.setOnReadyHandler(() -> {
        synchronized (lock) {
          readyEvents++;
          lock.notifyAll();
        }
      });
    }

    ClientCallStreamObserver<UploadArtifactsRequest> requests() {
      synchronized (lock) {
        return requests;
      }
    }

    @Override
    public void onNext(UploadArtifactsResponse value) {
      synchronized (lock) {
        response = value;
      }
    }

    @Override
    public void onError(Throwable t) {
      synchronized (lock) {
        error = t;
        done = true;
        lock.notifyAll();
      }
    }

    @Override
    public void onCompleted() {
      synchronized (lock) {
        done = true;
        lock.notifyAll();
      }
    }

    /** Sends once the transport has room; throws the call's end if it ended first. */
    void send(UploadArtifactsRequest request) {
      ClientCallStreamObserver<UploadArtifactsRequest> stream = requests();
      while (true) {
        long seen;
        synchronized (lock) {
          throwIfEnded();
          seen = readyEvents;
        }
        // Asked outside the lock; a readiness change after this bumps readyEvents, so the wait
        // below can't miss it.
        if (stream.isReady()) {
          stream.onNext(request);
          return;
        }
        synchronized (lock) {
          while (readyEvents == seen && !done) {
            waitUntilDeadline();
          }
        }
      }
    }

    UploadArtifactsResponse await() {
      synchronized (lock) {
        while (!done) {
          waitUntilDeadline();
        }
        throwIfEnded();
        if (response == null) {
          throw Status.INTERNAL.withDescription("UploadArtifacts ended without an answer")
              .asRuntimeException();
        }
        return response;
      }
    }

    void cancel(Throwable cause) {
      requests().cancel("the plugin gave up the upload", cause);
    }

    // Holds lock.
    private void throwIfEnded() {
      if (error != null) {
        throw error instanceof StatusRuntimeException ? (StatusRuntimeException) error
            : Status.fromThrowable(error).asRuntimeException();
      }
      if (done && response == null) {
        throw Status.INTERNAL.withDescription("UploadArtifacts ended without an answer")
            .asRuntimeException();
      }
    }

    // Holds lock.
    private void waitUntilDeadline() {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw Status.DEADLINE_EXCEEDED.withDescription("UploadArtifacts got no answer in time")
            .asRuntimeException();
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
      }
    }
  }
}
