package io.kje.gravitino.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.gravitino.connector.job.JobContext;
import org.apache.gravitino.connector.job.JobExecutionInfo;
import org.apache.gravitino.connector.job.JobExecutor;
import org.apache.gravitino.exceptions.NoSuchJobException;
import org.apache.gravitino.job.JobHandle;
import org.apache.gravitino.job.ShellJobTemplate;
import org.apache.gravitino.job.SparkJobTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shaded plugin driven as Gravitino's job manager drives it, against the real
 * k8s-job-executor over kubesim and its simulated Spark operator: two plaintext replicas (one
 * plugin instance each) and one replica with TLS and a bearer token.
 */
class EndToEndTest {
  private static final String PREFIX = "gravitino.jobExecutor.kje.";
  private static final long OPERATOR_WAIT_MS = 60_000;

  private static Path dir;
  private static Processes.Kubesim cluster;
  private static Processes.Server first;
  private static Processes.Server second;
  private static Processes.Server secure;
  private static Processes.Server mutual;
  private static final List<JobExecutor> executors = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    boolean have = Processes.BINARY != null && Processes.KUBESIM != null;
    if (!have && "1".equals(System.getenv("KJE_E2E_REQUIRED"))) {
      fail("KJE_BINARY and KJE_KUBESIM must name the k8s-job-executor and kubesim binaries");
    }
    Assumptions.assumeTrue(have, "KJE_BINARY/KJE_KUBESIM not set: no end-to-end run");
    Path work = Path.of(System.getProperty("kje.workDir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(work);
    dir = Files.createTempDirectory(work, "e2e-");
    Processes.makePki(dir);
    Files.writeString(dir.resolve("callers.token"), "right-token\n");
    Files.writeString(dir.resolve("wrong.token"), "wrong-token\n");
    cluster = new Processes.Kubesim(dir);
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, "kubeconfig: " + cluster.kubeconfig + "\n"
        + "noStatusTimeoutMs: 3000\n"
        + "spark:\n"
        + "  image: apache/spark:4.0.0\n"
        + "  sparkVersion: 4.0.0\n"
        + "  driverStartTimeoutMs: 20000\n"
        + "  resourceRetainDurationMs: 600000\n");
    first = new Processes.Server("server-1", dir, config);
    second = new Processes.Server("server-2", dir, config);
    secure = new Processes.Server("server-tls", dir, config,
        "server.tls.certFile=" + dir.resolve("server.crt"),
        "server.tls.keyFile=" + dir.resolve("server.key"),
        "server.tokenFile=" + dir.resolve("callers.token"));
    mutual = new Processes.Server("server-mtls", dir, config,
        "server.tls.certFile=" + dir.resolve("server.crt"),
        "server.tls.keyFile=" + dir.resolve("server.key"),
        "server.tls.clientCaFile=" + dir.resolve("ca.crt"));
  }

  @AfterAll
  static void stop() throws Exception {
    for (JobExecutor e : executors) {
      e.close();
    }
    List<Integer> codes = new ArrayList<>();
    for (Processes.Server s : new Processes.Server[] {first, second, secure, mutual}) {
      if (s != null) {
        codes.add(s.proc.stop());
        assertFalse(s.log().contains("right-token"), "a token reached " + s.proc.name + "'s log");
      }
    }
    if (cluster != null) {
      cluster.proc.stop();
    }
    for (int code : codes) {
      assertEquals(0, code, "a server exited with " + codes);
    }
  }

  /**
   * What JobExecutorFactory does: the class by name, the no-argument constructor, then initialize
   * with the gravitino.jobExecutor.kje.* keys, prefix stripped (including its own `class`).
   */
  private static JobExecutor plugin(String... kv) throws Exception {
    Map<String, String> conf = new HashMap<>();
    conf.put(PREFIX + "class", "io.kje.gravitino.KjeJobExecutor");
    for (int i = 0; i < kv.length; i += 2) {
      conf.put(PREFIX + kv[i], kv[i + 1]);
    }
    conf.put("gravitino.job.executor", "kje");
    Map<String, String> stripped = new HashMap<>();
    conf.forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        stripped.put(k.substring(PREFIX.length()), v);
      }
    });
    JobExecutor e = (JobExecutor) Class.forName(stripped.get("class"))
        .getDeclaredConstructor().newInstance();
    e.initialize(stripped);
    executors.add(e);
    return e;
  }

  private static SparkJobTemplate sparkPi(String outcome) {
    return SparkJobTemplate.builder()
        .withName("spark-pi")
        .withComment("SparkPi")
        .withExecutable("local:///opt/spark/examples/jars/spark-examples.jar")
        .withArguments(List.of("100"))
        .withClassName("org.apache.spark.examples.SparkPi")
        .withConfigs(Map.of("kubesim.outcome", outcome, "kubesim.durationMs", "2000"))
        .build();
  }

  private static JobContext context(long jobId) {
    return new JobContext(jobId, "lake", dir.resolve("staging/job-" + jobId).toFile());
  }

  private static boolean terminal(JobHandle.Status s) {
    return s == JobHandle.Status.SUCCEEDED || s == JobHandle.Status.FAILED
        || s == JobHandle.Status.CANCELLED;
  }

  /**
   * Polls as the job manager does until the job reaches {@code wanted} or stops, checking on
   * every snapshot that a job once started keeps its start time. Returns the last snapshot.
   */
  private static JobExecutionInfo poll(JobExecutor e, String id, JobHandle.Status wanted,
      List<JobHandle.Status> seen) {
    boolean[] started = {false};
    JobExecutionInfo info = Processes.waitFor(id + " to be " + wanted, OPERATOR_WAIT_MS, () -> {
      JobExecutionInfo i = e.getJobExecutionInfo(id);
      if (seen.isEmpty() || seen.get(seen.size() - 1) != i.status()) {
        seen.add(i.status());
      }
      if (i.startedAt() != null) {
        started[0] = true;
      } else if (started[0]) {
        throw new AssertionError("a snapshot after the start lost the start time: " + i);
      }
      if (i.finishedAt() != null && !terminal(i.status())) {
        throw new AssertionError("a finish time on an unfinished job: " + i);
      }
      return i.status() == wanted || terminal(i.status()) ? i : null;
    });
    assertEquals(wanted, info.status(), "statuses seen: " + seen);
    return info;
  }

  @Test
  void aJobRunsToSuccessAndAnyInstanceAnswersForIt() throws Exception {
    JobExecutor a = plugin("target", first.address);
    JobExecutor b = plugin("target", "dns:///" + second.address);
    String id = a.submitJob(context(7001), sparkPi("succeed"));
    assertEquals("default/sparkapp/default/gravitino-job-7001", id);
    List<JobHandle.Status> seen = new ArrayList<>();
    JobExecutionInfo done = poll(a, id, JobHandle.Status.SUCCEEDED, seen);
    assertTrue(seen.contains(JobHandle.Status.STARTED), "statuses seen: " + seen);
    assertNotNull(done.startedAt());
    assertNotNull(done.finishedAt());
    assertFalse(done.startedAt().isAfter(done.finishedAt()), done.toString());

    List<String> out = a.getJobStdout(id, 1000, 262144);
    assertTrue(out.stream().anyMatch(l -> l.startsWith("Pi is roughly 3.14")), out.toString());
    assertEquals(out.subList(out.size() - 2, out.size()), a.getJobStdout(id, 2, 262144));
    assertEquals(List.of(), a.getJobStderr(id, 10, 1000));

    // Another Gravitino server's instance, through another replica, knows the job as well.
    assertEquals(done, b.getJobExecutionInfo(id));
    assertEquals(out, b.getJobStdout(id, 1000, 262144));
    // A retried submit of the same Gravitino job adopts its application.
    assertEquals(id, b.submitJob(context(7001), sparkPi("succeed")));
  }

  @Test
  void aFailedJob() throws Exception {
    JobExecutor a = plugin("target", first.address);
    String id = a.submitJob(context(7002), sparkPi("fail"));
    JobExecutionInfo info = poll(a, id, JobHandle.Status.FAILED, new ArrayList<>());
    assertNotNull(info.finishedAt());
  }

  @Test
  void aRunningJobIsCancelledFromAnotherInstance() throws Exception {
    JobExecutor a = plugin("target", first.address);
    JobExecutor b = plugin("target", second.address);
    String id = a.submitJob(context(7003), sparkPi("hang"));
    poll(a, id, JobHandle.Status.STARTED, new ArrayList<>());
    b.cancelJob(id);
    List<JobHandle.Status> seen = new ArrayList<>();
    JobExecutionInfo info = poll(a, id, JobHandle.Status.CANCELLED, seen);
    assertNotNull(info.startedAt(), "a cancelled job that had started keeps its start time");
    assertNotNull(info.finishedAt());
    // Cancelling a stopped job is fine (the job manager may retry it); the outcome stays.
    b.cancelJob(id);
    assertEquals(JobHandle.Status.CANCELLED, b.getJobExecutionInfo(id).status());
  }

  @Test
  void errorsAsGravitinoSeesThem() throws Exception {
    JobExecutor a = plugin("target", first.address);
    String unknown = "default/sparkapp/default/gravitino-job-999999";
    NoSuchJobException missing =
        assertThrows(NoSuchJobException.class, () -> a.getJobExecutionInfo(unknown));
    assertTrue(missing.getMessage().startsWith("Job " + unknown + " not found: "),
        missing.getMessage());
    assertThrows(NoSuchJobException.class, () -> a.cancelJob("not-an-execution-id%s"));
    assertEquals(List.of(), a.getJobStdout(unknown, 10, 1000));
    assertEquals(List.of(), a.getJobStdout("not-an-execution-id", 10, 1000));

    // The service's reason for a bad template reaches the user (Gravitino answers 400 with it).
    SparkJobTemplate serverLocal = SparkJobTemplate.builder().withName("t")
        .withExecutable("/opt/app.jar").withClassName("A").build();
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> a.submitJob(context(7004), serverLocal));
    assertFalse(bad.getMessage().isBlank());
    ShellJobTemplate shell = ShellJobTemplate.builder().withName("sh")
        .withExecutable("s3a://b/run.sh").build();
    assertThrows(IllegalArgumentException.class, () -> a.submitJob(context(7005), shell));

    // Nobody listens there: a RuntimeException naming the target, after the retries.
    JobExecutor nowhere = plugin("target", "127.0.0.1:1", "retry.initialBackoffMs", "10",
        "retry.maxBackoffMs", "20");
    RuntimeException down = assertThrows(RuntimeException.class,
        () -> nowhere.getJobExecutionInfo(unknown));
    assertTrue(down.getMessage().startsWith("k8s-job-executor at 127.0.0.1:1 is unavailable"),
        down.getMessage());
  }

  @Test
  void overTlsWithABearerToken() throws Exception {
    JobExecutor t = plugin("target", secure.address,
        "tls.caFile", dir.resolve("ca.crt").toString(),
        "tls.serverName", "localhost",
        "tokenFile", dir.resolve("callers.token").toString());
    String id = t.submitJob(context(7006), sparkPi("succeed"));
    JobExecutionInfo info = poll(t, id, JobHandle.Status.SUCCEEDED, new ArrayList<>());
    assertNotNull(info.startedAt());
    assertTrue(t.getJobStdout(id, 1000, 262144).stream()
        .anyMatch(l -> l.startsWith("Pi is roughly 3.14")));

    JobExecutor wrong = plugin("target", secure.address,
        "tls.caFile", dir.resolve("ca.crt").toString(),
        "tokenFile", dir.resolve("wrong.token").toString());
    RuntimeException denied = assertThrows(RuntimeException.class,
        () -> wrong.submitJob(context(7007), sparkPi("succeed")));
    assertEquals("k8s-job-executor at " + secure.address + " rejected the plugin's credentials"
        + " on Submit (check tokenFile): missing or invalid bearer token", denied.getMessage());
    assertFalse(denied.getMessage().contains("wrong-token"));
    RuntimeException noToken = assertThrows(RuntimeException.class,
        () -> plugin("target", secure.address, "tls.caFile", dir.resolve("ca.crt").toString())
            .getJobExecutionInfo(id));
    assertTrue(noToken.getMessage().contains("missing or invalid bearer token"),
        noToken.getMessage());

    // A CA that didn't sign the server's certificate: the plugin refuses the server.
    JobExecutor untrusting = plugin("target", secure.address, "retry.maxAttempts", "1",
        "tls.caFile", dir.resolve("client.crt").toString(),
        "tokenFile", dir.resolve("callers.token").toString());
    RuntimeException refused = assertThrows(RuntimeException.class,
        () -> untrusting.getJobExecutionInfo(id));
    assertTrue(refused.getMessage().startsWith("k8s-job-executor at " + secure.address),
        refused.getMessage());
    // Plaintext to the TLS port gets nowhere either.
    JobExecutor plain = plugin("target", secure.address, "retry.maxAttempts", "1",
        "tokenFile", dir.resolve("callers.token").toString());
    assertThrows(RuntimeException.class, () -> plain.getJobExecutionInfo(id));
  }

  @Test
  void mutualTls() throws Exception {
    String ca = dir.resolve("ca.crt").toString();
    JobExecutor m = plugin("target", mutual.address, "tls.caFile", ca,
        "tls.certFile", dir.resolve("client.crt").toString(),
        "tls.keyFile", dir.resolve("client.key").toString());
    String id = m.submitJob(context(7008), sparkPi("succeed"));
    poll(m, id, JobHandle.Status.SUCCEEDED, new ArrayList<>());
    // Without a client certificate the service refuses the connection.
    JobExecutor anonymous = plugin("target", mutual.address, "tls.caFile", ca,
        "retry.maxAttempts", "1");
    RuntimeException refused = assertThrows(RuntimeException.class,
        () -> anonymous.getJobExecutionInfo(id));
    assertTrue(refused.getMessage().startsWith("k8s-job-executor at " + mutual.address),
        refused.getMessage());
  }

  @Test
  void badConfigurationFailsInitializeNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> plugin("target", secure.address, "tls.caFile", dir.resolve("nope.crt").toString()));
    assertTrue(e.getMessage().startsWith("tls.caFile "), e.getMessage());
    IllegalArgumentException pem = assertThrows(IllegalArgumentException.class,
        () -> plugin("target", secure.address, "tls.caFile", dir.resolve("server.ext").toString()));
    assertTrue(pem.getMessage().startsWith("tls.caFile holds no usable PEM"), pem.getMessage());
    File cert = dir.resolve("client.crt").toFile();
    IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
        () -> plugin("target", secure.address, "tls.caFile", dir.resolve("ca.crt").toString(),
            "tls.certFile", cert.toString(), "tls.keyFile", cert.toString()));
    assertTrue(key.getMessage().startsWith("tls.certFile/tls.keyFile"), key.getMessage());
  }
}
