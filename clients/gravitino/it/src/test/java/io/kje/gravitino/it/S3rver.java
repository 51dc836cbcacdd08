package io.kje.gravitino.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real S3-compatible store for the end-to-end tests: s3rver from npm (installed by {@code
 * scripts/fetch-s3rver.sh}, started by {@code scripts/s3rver-main.js} as the Python tests start
 * it) on loopback, port 0, with one bucket and a key pair of the test's own.
 */
final class S3rver {
  static final String BUCKET = "kje-staging";
  private static final Pattern LISTENING = Pattern.compile("listening (\\d+)");
  /** How s3rver's filesystem store names an object's bytes: {@code <key>._S3rver_object}. */
  private static final String OBJECT_SUFFIX = "._S3rver_object";

  final Processes.Proc proc;
  final String endpoint;
  final Path data;

  S3rver(Path dir, String keyId, String secret) throws Exception {
    Process fetch = new ProcessBuilder(
        Processes.SOURCE_DIR.resolve("scripts/fetch-s3rver.sh").toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String bin = new String(fetch.getInputStream().readAllBytes()).trim();
    if (!fetch.waitFor(600, TimeUnit.SECONDS) || fetch.exitValue() != 0) {
      throw new AssertionError("scripts/fetch-s3rver.sh failed");
    }
    // <root>/node_modules/s3rver/bin/s3rver.js
    Path root = Path.of(bin).getParent().getParent().getParent().getParent();
    data = Files.createDirectories(dir.resolve("s3rver-data"));
    proc = new Processes.Proc("s3rver", List.of("node",
        Processes.SOURCE_DIR.resolve("scripts/s3rver-main.js").toString(), root.toString(),
        data.toString(), BUCKET), dir, Map.of("KJE_KEY_ID", keyId, "KJE_SECRET", secret));
    endpoint = "http://127.0.0.1:" + Processes.waitFor("s3rver to listen", 60_000,
        () -> proc.match(proc.out, LISTENING));
  }

  /** Every object of the bucket whose key ends in {@code /name}: the files holding its bytes. */
  List<Path> objectsNamed(String name) throws IOException {
    try (Stream<Path> files = Files.walk(data.resolve(BUCKET))) {
      return files.filter(p -> Files.isRegularFile(p)
          && p.getFileName().toString().equals(name + OBJECT_SUFFIX)).toList();
    }
  }

  void stop() throws InterruptedException {
    proc.stop();
  }
}
