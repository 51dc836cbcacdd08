package io.kje.gravitino;

import java.io.File;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The plugin's configuration: Gravitino's {@code gravitino.jobExecutor.<name>.*} keys with the
 * prefix stripped. Every bad value fails with an {@link IllegalArgumentException} naming its key,
 * so a typo stops Gravitino at start-up instead of surfacing as failed jobs.
 */
public final class KjeJobExecutorConfig {
  public static final String TARGET = "target";
  public static final String TLS_ENABLED = "tls.enabled";
  public static final String TLS_CA_FILE = "tls.caFile";
  public static final String TLS_CERT_FILE = "tls.certFile";
  public static final String TLS_KEY_FILE = "tls.keyFile";
  public static final String TLS_SERVER_NAME = "tls.serverName";
  public static final String TOKEN_FILE = "tokenFile";
  public static final String SUBMIT_DEADLINE_MS = "submitDeadlineMs";
  public static final String STATUS_DEADLINE_MS = "statusDeadlineMs";
  public static final String CANCEL_DEADLINE_MS = "cancelDeadlineMs";
  public static final String OUTPUT_DEADLINE_MS = "outputDeadlineMs";
  public static final String UPLOAD_DEADLINE_MS = "uploadDeadlineMs";
  public static final String KEEP_ALIVE_TIME_MS = "keepAliveTimeMs";
  public static final String KEEP_ALIVE_TIMEOUT_MS = "keepAliveTimeoutMs";
  public static final String RETRY_MAX_ATTEMPTS = "retry.maxAttempts";
  public static final String RETRY_INITIAL_BACKOFF_MS = "retry.initialBackoffMs";
  public static final String RETRY_MAX_BACKOFF_MS = "retry.maxBackoffMs";
  public static final String RETRY_BACKOFF_MULTIPLIER = "retry.backoffMultiplier";
  public static final String CLOSE_TIMEOUT_MS = "closeTimeoutMs";
  // Gravitino passes its own `gravitino.jobExecutor.<name>.class` along with ours.
  static final String CLASS = "class";

  static final Set<String> KEYS =
      Collections.unmodifiableSet(
          new TreeSet<>(
              Set.of(
                  TARGET,
                  TLS_ENABLED,
                  TLS_CA_FILE,
                  TLS_CERT_FILE,
                  TLS_KEY_FILE,
                  TLS_SERVER_NAME,
                  TOKEN_FILE,
                  SUBMIT_DEADLINE_MS,
                  STATUS_DEADLINE_MS,
                  CANCEL_DEADLINE_MS,
                  OUTPUT_DEADLINE_MS,
                  UPLOAD_DEADLINE_MS,
                  KEEP_ALIVE_TIME_MS,
                  KEEP_ALIVE_TIMEOUT_MS,
                  RETRY_MAX_ATTEMPTS,
                  RETRY_INITIAL_BACKOFF_MS,
                  RETRY_MAX_BACKOFF_MS,
                  RETRY_BACKOFF_MULTIPLIER,
                  CLOSE_TIMEOUT_MS)));

  // gRPC-java's own ceiling for keepalive pings; anything lower is silently raised to it.
  static final long MIN_KEEP_ALIVE_TIME_MS = 10_000;
  static final int MAX_RETRY_ATTEMPTS = 10;
  private static final long MAX_MS = 24L * 3600 * 1000;
  private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

  private final String target;
  private final boolean tls;
  private final File caFile;
  private final File certFile;
  private final File keyFile;
  private final String serverName;
  private final File tokenFile;
  private final long submitDeadlineMs;
  private final long statusDeadlineMs;
  private final long cancelDeadlineMs;
  private final long outputDeadlineMs;
  private final long uploadDeadlineMs;
  private final long keepAliveTimeMs;
  private final long keepAliveTimeoutMs;
  private final int retryMaxAttempts;
  private final long retryInitialBackoffMs;
  private final long retryMaxBackoffMs;
  private final double retryBackoffMultiplier;
  private final long closeTimeoutMs;

  private KjeJobExecutorConfig(Map<String, String> c) {
    for (String key : new TreeSet<>(c.keySet())) {
      if (!KEYS.contains(key) && !CLASS.equals(key)) {
        throw new IllegalArgumentException(
            "Unknown configuration key '" + key + "' of the k8s-job-executor plugin; known keys: "
                + String.join(", ", KEYS));
      }
    }
    target = parseTarget(c.get(TARGET));
    caFile = readableFile(c, TLS_CA_FILE);
    certFile = readableFile(c, TLS_CERT_FILE);
    keyFile = readableFile(c, TLS_KEY_FILE);
    if ((certFile == null) != (keyFile == null)) {
      String missing = certFile == null ? TLS_CERT_FILE : TLS_KEY_FILE;
      throw new IllegalArgumentException(
          missing + " must be set: mutual TLS needs both " + TLS_CERT_FILE + " and " + TLS_KEY_FILE);
    }
    serverName = optional(c, TLS_SERVER_NAME);
    if (serverName != null && !serverName.matches("[A-Za-z0-9._:\\[\\]-]+")) {
      throw new IllegalArgumentException(TLS_SERVER_NAME + " is not a host name: '" + serverName
          + "'");
    }
    boolean anyTls = caFile != null || certFile != null || serverName != null;
    String enabled = optional(c, TLS_ENABLED);
    if (enabled == null) {
      tls = anyTls;
    } else if (enabled.equalsIgnoreCase("true") || enabled.equalsIgnoreCase("false")) {
      tls = Boolean.parseBoolean(enabled.toLowerCase());
      if (!tls && anyTls) {
        throw new IllegalArgumentException(
            TLS_ENABLED + " is false but other tls.* keys are set; remove them or enable TLS");
      }
    } else {
      throw new IllegalArgumentException(TLS_ENABLED + " must be true or false, not '" + enabled
          + "'");
    }
    tokenFile = readableFile(c, TOKEN_FILE);
    submitDeadlineMs = millis(c, SUBMIT_DEADLINE_MS, 30_000, 1);
    statusDeadlineMs = millis(c, STATUS_DEADLINE_MS, 10_000, 1);
    cancelDeadlineMs = millis(c, CANCEL_DEADLINE_MS, 10_000, 1);
    outputDeadlineMs = millis(c, OUTPUT_DEADLINE_MS, 10_000, 1);
    // All of a job's server-local files in one call: minutes, not seconds, for large jars.
    uploadDeadlineMs = millis(c, UPLOAD_DEADLINE_MS, 600_000, 1);
    keepAliveTimeMs = millis(c, KEEP_ALIVE_TIME_MS, 0, 0);
    if (keepAliveTimeMs != 0 && keepAliveTimeMs < MIN_KEEP_ALIVE_TIME_MS) {
      throw new IllegalArgumentException(KEEP_ALIVE_TIME_MS + " must be 0 (off) or at least "
          + MIN_KEEP_ALIVE_TIME_MS + ", not " + keepAliveTimeMs);
    }
    keepAliveTimeoutMs = millis(c, KEEP_ALIVE_TIMEOUT_MS, 20_000, 1);
    retryMaxAttempts = (int) integer(c, RETRY_MAX_ATTEMPTS, 5, 1, MAX_RETRY_ATTEMPTS);
    retryInitialBackoffMs = millis(c, RETRY_INITIAL_BACKOFF_MS, 200, 1);
    retryMaxBackoffMs = millis(c, RETRY_MAX_BACKOFF_MS, 5_000, 1);
    if (retryMaxBackoffMs < retryInitialBackoffMs) {
      throw new IllegalArgumentException(RETRY_MAX_BACKOFF_MS + " (" + retryMaxBackoffMs
          + ") must not be below " + RETRY_INITIAL_BACKOFF_MS + " (" + retryInitialBackoffMs + ")");
    }
    retryBackoffMultiplier = decimal(c, RETRY_BACKOFF_MULTIPLIER, 2.0, 1.0, 10.0);
    closeTimeoutMs = millis(c, CLOSE_TIMEOUT_MS, 5_000, 0);
  }

  /** Parses the prefix-stripped keys; never modifies {@code configs}. */
  public static KjeJobExecutorConfig parse(Map<String, String> configs) {
    if (configs == null) {
      throw new IllegalArgumentException("The k8s-job-executor plugin needs its configuration");
    }
    return new KjeJobExecutorConfig(configs);
  }

  private static String optional(Map<String, String> c, String key) {
    String v = c.get(key);
    if (v == null || v.trim().isEmpty()) {
      return null;
    }
    return v.trim();
  }

  private static String parseTarget(String raw) {
    if (raw == null || raw.trim().isEmpty()) {
      throw new IllegalArgumentException(
          TARGET + " must be set to the service's address, e.g. dns:///kje.gravitino.svc:50051 or"
              + " 127.0.0.1:50051");
    }
    String t = raw.trim();
    if (t.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(TARGET + " must not contain spaces: '" + t + "'");
    }
    if (t.startsWith("http://") || t.startsWith("https://")) {
      throw new IllegalArgumentException(TARGET + " is a gRPC target, not a URL: use host:port or"
          + " dns:///host:port (TLS is set with the tls.* keys), not '" + t + "'");
    }
    if (!t.contains("://") && !t.startsWith("unix:")) {
      int colon = t.lastIndexOf(':');
      String port = colon < 0 ? "" : t.substring(colon + 1);
      if (colon <= 0 || !PORT.matcher(port).matches() || Integer.parseInt(port) == 0
          || Integer.parseInt(port) > 65535) {
        throw new IllegalArgumentException(
            TARGET + " must be host:port (port 1-65535) or a gRPC URI such as dns:///host:port,"
                + " not '" + t + "'");
      }
    }
    return t;
  }

  private static File readableFile(Map<String, String> c, String key) {
    String v = optional(c, key);
    if (v == null) {
      return null;
    }
    File f = new File(v);
    if (!f.isFile() || !f.canRead()) {
      throw new IllegalArgumentException(key + " names no readable file: " + v);
    }
    return f;
  }

  private static long integer(Map<String, String> c, String key, long dflt, long min, long max) {
    String v = optional(c, key);
    if (v == null) {
      return dflt;
    }
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, not '" + v + "'");
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          key + " must be between " + min + " and " + max + ", not " + n);
    }
    return n;
  }

  private static long millis(Map<String, String> c, String key, long dflt, long min) {
    return integer(c, key, dflt, min, MAX_MS);
  }

  private static double decimal(Map<String, String> c, String key, double dflt, double min,
      double max) {
    String v = optional(c, key);
    if (v == null) {
      return dflt;
    }
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number, not '" + v + "'");
    }
    if (!(d >= min && d <= max)) {
      throw new IllegalArgumentException(
          key + " must be between " + min + " and " + max + ", not " + v);
    }
    return d;
  }

  public String target() {
    return target;
  }

  public boolean tls() {
    return tls;
  }

  public File caFile() {
    return caFile;
  }

  public File certFile() {
    return certFile;
  }

  public File keyFile() {
    return keyFile;
  }

  public String serverName() {
    return serverName;
  }

  public File tokenFile() {
    return tokenFile;
  }

  public long submitDeadlineMs() {
    return submitDeadlineMs;
  }

  public long statusDeadlineMs() {
    return statusDeadlineMs;
  }

  public long cancelDeadlineMs() {
    return cancelDeadlineMs;
  }

  public long outputDeadlineMs() {
    return outputDeadlineMs;
  }

  public long uploadDeadlineMs() {
    return uploadDeadlineMs;
  }

  public long keepAliveTimeMs() {
    return keepAliveTimeMs;
  }

  public long keepAliveTimeoutMs() {
    return keepAliveTimeoutMs;
  }

  public int retryMaxAttempts() {
    return retryMaxAttempts;
  }

  public long retryInitialBackoffMs() {
    return retryInitialBackoffMs;
  }

  public long retryMaxBackoffMs() {
    return retryMaxBackoffMs;
  }

  public double retryBackoffMultiplier() {
    return retryBackoffMultiplier;
  }

  public long closeTimeoutMs() {
    return closeTimeoutMs;
  }
}
