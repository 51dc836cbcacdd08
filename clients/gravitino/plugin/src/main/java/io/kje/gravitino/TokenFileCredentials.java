package io.kje.gravitino;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Sends the token in a file as {@code authorization: Bearer <token>} on every call. The file is
 * re-read when it changes (a rotated Kubernetes Secret replaces it by a rename), checked by a
 * stat per call; the token itself never reaches a log or an error message.
 */
final class TokenFileCredentials extends CallCredentials {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Path path;
  private final Object lock = new Object();
  private FileTime modified;
  private Object fileKey;
  private long size = -1;
  private String token;

  /** Reads the token once, so a missing or empty file fails at initialize. */
  TokenFileCredentials(Path path) throws IOException {
    this.path = path;
    currentToken();
  }

  String currentToken() throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
    synchronized (lock) {
      if (token != null
          && attrs.lastModifiedTime().equals(modified)
          && Objects.equals(attrs.fileKey(), fileKey)
          && attrs.size() == size) {
        return token;
      }
      String read = new String(Files.readAllBytes(path), StandardCharsets.UTF_8).trim();
      if (read.isEmpty()) {
        throw new IOException("the file is empty");
      }
      if (read.chars().anyMatch(ch -> ch < 0x21 || ch > 0x7e)) {
        throw new IOException("the token has characters a header can't carry");
      }
      token = read;
      modified = attrs.lastModifiedTime();
      fileKey = attrs.fileKey();
      size = attrs.size();
      return token;
    }
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    String current;
    try {
      current = currentToken();
    } catch (IOException e) {
      applier.fail(
          Status.UNAUTHENTICATED.withDescription(
              "cannot read the token from tokenFile " + path + ": " + e.getMessage()));
      return;
    }
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + current);
    applier.apply(headers);
  }

  @Override
  public void thisUsesUnstableApi() {}
}
