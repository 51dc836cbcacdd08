package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KjeJobExecutorConfigTest {
  @TempDir Path dir;

  private static Map<String, String> with(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("target", "127.0.0.1:50051");
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static String rejected(Map<String, String> m) {
    return assertThrows(IllegalArgumentException.class, () -> KjeJobExecutorConfig.parse(m))
        .getMessage();
  }

  private Path file(String name, String content) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, content);
    return p;
  }

  @Test
  void defaults() {
    // Gravitino hands over its own `class` key with ours; an unmodifiable map must do.
    KjeJobExecutorConfig c =
        KjeJobExecutorConfig.parse(
            Map.of("target", " dns:///kje.gravitino.svc:50051 ", "class", "io.kje.X"));
    assertEquals("dns:///kje.gravitino.svc:50051", c.target());
    assertFalse(c.tls());
    assertNull(c.tokenFile());
    assertEquals(30_000, c.submitDeadlineMs());
    assertEquals(10_000, c.statusDeadlineMs());
    assertEquals(10_000, c.cancelDeadlineMs());
    assertEquals(10_000, c.outputDeadlineMs());
    assertEquals(600_000, c.uploadDeadlineMs());
    assertEquals(0, c.keepAliveTimeMs());
    assertEquals(5, c.retryMaxAttempts());
    assertEquals(200, c.retryInitialBackoffMs());
    assertEquals(5_000, c.retryMaxBackoffMs());
    assertEquals(2.0, c.retryBackoffMultiplier());
    assertEquals(5_000, c.closeTimeoutMs());
  }

  @Test
  void everyKeySet() throws IOException {
    Path ca = file("ca.crt", "x");
    Path cert = file("c.crt", "x");
    Path key = file("c.key", "x");
    Path token = file("token", "t");
    KjeJobExecutorConfig c =
        KjeJobExecutorConfig.parse(
            with(
                "tls.caFile", ca.toString(),
                "tls.certFile", cert.toString(),
                "tls.keyFile", key.toString(),
                "tls.serverName", "kje.gravitino.svc",
                "tokenFile", token.toString(),
                "submitDeadlineMs", "60000",
                "statusDeadlineMs", "1",
                "cancelDeadlineMs", "2",
                "outputDeadlineMs", "3",
                "uploadDeadlineMs", "5",
                "keepAliveTimeMs", "30000",
                "keepAliveTimeoutMs", "4",
                "retry.maxAttempts", "1",
                "retry.initialBackoffMs", "10",
                "retry.maxBackoffMs", "10",
                "retry.backoffMultiplier", "1.5",
                "closeTimeoutMs", "0"));
    assertTrue(c.tls(), "tls.* keys imply TLS");
    assertEquals(ca.toFile(), c.caFile());
    assertEquals(cert.toFile(), c.certFile());
    assertEquals(key.toFile(), c.keyFile());
    assertEquals("kje.gravitino.svc", c.serverName());
    assertEquals(token.toFile(), c.tokenFile());
    assertEquals(60_000, c.submitDeadlineMs());
    assertEquals(1, c.statusDeadlineMs());
    assertEquals(2, c.cancelDeadlineMs());
    assertEquals(3, c.outputDeadlineMs());
    assertEquals(5, c.uploadDeadlineMs());
    assertEquals(30_000, c.keepAliveTimeMs());
    assertEquals(4, c.keepAliveTimeoutMs());
    assertEquals(1, c.retryMaxAttempts());
    assertEquals(1.5, c.retryBackoffMultiplier());
    assertEquals(0, c.closeTimeoutMs());
  }

  @Test
  void tlsEnabledWithoutFilesUsesTheSystemTrustStore() {
    assertTrue(KjeJobExecutorConfig.parse(with("tls.enabled", "TRUE")).tls());
    assertFalse(KjeJobExecutorConfig.parse(with("tls.enabled", "false")).tls());
  }

  @Test
  void badTargets() {
    for (String t : new String[] {"", "  ", "kje", "kje:", "kje:0", "kje:70000", "kje:port",
        "https://kje:50051", "a b:1"}) {
      assertTrue(rejected(with("target", t)).startsWith("target "), t);
    }
    Map<String, String> none = new HashMap<>();
    assertTrue(rejected(none).startsWith("target must be set"));
    assertEquals("unix:///run/kje.sock",
        KjeJobExecutorConfig.parse(with("target", "unix:///run/kje.sock")).target());
    assertEquals("[::1]:50051", KjeJobExecutorConfig.parse(with("target", "[::1]:50051")).target());
  }

  @Test
  void badValuesNameTheirKey() throws IOException {
    String missing = dir.resolve("nope").toString();
    assertTrue(rejected(with("tls.caFile", missing)).startsWith("tls.caFile names no readable"));
    assertTrue(rejected(with("tokenFile", missing)).startsWith("tokenFile names no readable"));
    assertTrue(rejected(with("tokenFile", dir.toString())).startsWith("tokenFile "));
    Path cert = file("c.crt", "x");
    assertTrue(rejected(with("tls.certFile", cert.toString())).startsWith("tls.keyFile must be"));
    assertTrue(rejected(with("tls.keyFile", cert.toString())).startsWith("tls.certFile must be"));
    assertTrue(rejected(with("tls.enabled", "yes")).startsWith("tls.enabled must be"));
    assertTrue(rejected(with("tls.enabled", "false", "tls.serverName", "x"))
        .startsWith("tls.enabled is false"));
    assertTrue(rejected(with("tls.serverName", "a/b")).startsWith("tls.serverName "));
    assertTrue(rejected(with("statusDeadlineMs", "ten")).startsWith("statusDeadlineMs must be an"));
    assertTrue(rejected(with("submitDeadlineMs", "0")).startsWith("submitDeadlineMs must be"));
    assertTrue(rejected(with("cancelDeadlineMs", "-1")).startsWith("cancelDeadlineMs must be"));
    assertTrue(rejected(with("outputDeadlineMs", "99999999999")).startsWith("outputDeadlineMs"));
    assertTrue(rejected(with("uploadDeadlineMs", "0")).startsWith("uploadDeadlineMs must be"));
    assertTrue(rejected(with("keepAliveTimeMs", "1000")).startsWith("keepAliveTimeMs must be 0"));
    assertTrue(rejected(with("keepAliveTimeoutMs", "0")).startsWith("keepAliveTimeoutMs must"));
    assertTrue(rejected(with("retry.maxAttempts", "0")).startsWith("retry.maxAttempts must be"));
    assertTrue(rejected(with("retry.maxAttempts", "11")).startsWith("retry.maxAttempts must be"));
    assertTrue(rejected(with("retry.initialBackoffMs", "x")).startsWith("retry.initialBackoffMs"));
    assertTrue(rejected(with("retry.initialBackoffMs", "500", "retry.maxBackoffMs", "100"))
        .startsWith("retry.maxBackoffMs (100) must not be below"));
    assertTrue(rejected(with("retry.backoffMultiplier", "0.5"))
        .startsWith("retry.backoffMultiplier must be"));
    assertTrue(rejected(with("retry.backoffMultiplier", "NaN"))
        .startsWith("retry.backoffMultiplier must be"));
    assertTrue(rejected(with("closeTimeoutMs", "soon")).startsWith("closeTimeoutMs must be"));
  }

  @Test
  void unknownKeysAreTypos() {
    String m = rejected(with("tls.cafile", "/x"));
    assertTrue(m.startsWith("Unknown configuration key 'tls.cafile'"), m);
    assertTrue(m.contains("tls.caFile"), m);
  }

  @Test
  void nullConfigs() {
    assertThrows(IllegalArgumentException.class, () -> KjeJobExecutorConfig.parse(null));
  }

  @Test
  void serviceConfigRetriesUnavailableForTheCalledMethods() {
    KjeJobExecutorConfig c =
        KjeJobExecutorConfig.parse(
            with("retry.maxAttempts", "4", "retry.initialBackoffMs", "250",
                "retry.maxBackoffMs", "1500", "retry.backoffMultiplier", "3"));
    Map<String, Object> sc = Channels.serviceConfig(c);
    String text = sc.toString();
    assertTrue(text.contains("maxAttempts=4.0"), text);
    assertTrue(text.contains("initialBackoff=0.250s"), text);
    assertTrue(text.contains("maxBackoff=1.500s"), text);
    assertTrue(text.contains("backoffMultiplier=3.0"), text);
    assertTrue(text.contains("retryableStatusCodes=[UNAVAILABLE]"), text);
    for (String method : new String[] {"Submit", "Status", "Cancel", "Output"}) {
      assertTrue(text.contains("service=jobexecutor.v1.JobExecutor, method=" + method), text);
    }
    String once = Channels.serviceConfig(
        KjeJobExecutorConfig.parse(with("retry.maxAttempts", "1"))).toString();
    assertFalse(once.contains("retryPolicy"), once);
  }
}
