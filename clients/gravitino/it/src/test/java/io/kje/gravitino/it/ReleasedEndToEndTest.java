package io.kje.gravitino.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.net.URI;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shaded plugin on Gravitino 1.3.0's released SPI (compiled from its own sources), driven as
 * that Gravitino's job manager drives an executor, against the real k8s-job-executor over kubesim,
 * on both operators: {@code runJob} fetches the template's files into {@code
 * <stagingDir>/<metalake>/<template>/job-<id>/} and calls {@code submitJob(JobTemplate)} with those
 * local paths; its status poll calls {@code getJobStatus}, turning a NoSuchJobException into FAILED
 * (CANCELLED when cancelling) and keeping the status on any other Exception; its cancel calls
 * {@code cancelJob} and marks the job CANCELLING. The jar and the Python file exist only on this
 * "Gravitino server", so a job that succeeds ran on what the plugin uploaded. Each runs on both
 * staging stores: a volume shared with the drivers, and S3 (s3rver, started here, with presigned
 * URLs); the store's secret key is in no application and no line the service logs.
 */
class ReleasedEndToEndTest {
  private static final long OPERATOR_WAIT_MS = 60_000;
  private static final String METALAKE = "lake";
  private static final String KEY_ID = "KJEPLUGINKEYID";
  private static final String SECRET = "kje-plugin-secret-" + Long.toHexString(new SecureRandom()
      .nextLong());
  /** An upload not yet named by an application is kept this long by the sweep. */
  private static final long SWEEP_GRACE_MS = 8000;

  /** One cluster and one service per operator, started by the first test that needs them. */
  private static final Map<String, Backend> backends = new HashMap<>();
  private static Path dir;
  private static Path userFiles;
  private static byte[] jarBytes;

  private static final class Backend {
    final Processes.Kubesim cluster;
    final Processes.Server server;
    final Path store;
    final S3rver s3; // null on the volume store
    final Object executor;
    final JobManager manager;

    Backend(String operator, String storeKind) throws Throwable {
      Path d = Files.createDirectories(dir.resolve(operator + "-" + storeKind));
      cluster = new Processes.Kubesim(d, operator);
      store = Files.createDirectories(d.resolve("store"));
      String staging;
      if (storeKind.equals("s3")) {
        s3 = new S3rver(d, KEY_ID, SECRET);
        Path keyFile = Files.writeString(d.resolve("key-id"), KEY_ID + "\n");
        Path secretFile = Files.writeString(d.resolve("secret"), SECRET + "\n");
        staging = "  store: s3\n"
            + "  urlMode: presigned\n"
            + "  s3:\n"
            + "    endpoint: " + s3.endpoint + "\n"
            + "    bucket: " + S3rver.BUCKET + "\n"
            + "    accessKeyFile: " + keyFile + "\n"
            + "    secretKeyFile: " + secretFile + "\n";
      } else {
        s3 = null;
        staging = "  store: volume\n"
            + "  volume:\n"
            + "    path: " + store + "\n"
            + "    claimName: kje-staging\n"
            // Mounted where the service has it, so the drivers' local:// paths are its files.
            + "    mountPath: " + store + "\n";
      }
      Path config = d.resolve("config.yaml");
      Files.writeString(config, "kubeconfig: " + cluster.kubeconfig + "\n"
          + "operator: " + operator + "\n"
          + "noStatusTimeoutMs: 3000\n"
          + "staging:\n"
          + staging
          + "  sweepIntervalMs: 500\n"
          + "  sweepGraceMs: " + SWEEP_GRACE_MS + "\n"
          + "spark:\n"
          + "  image: apache/spark:4.0.0\n"
          + "  sparkVersion: 4.0.0\n"
          + "  driverStartTimeoutMs: 20000\n"
          + "  resourceRetainDurationMs: 600000\n");
      server = new Processes.Server("server-" + operator + "-" + storeKind, d, config,
          Map.of("K8S_JOB_EXECUTOR_OPERATOR", operator));
      URLClassLoader gravitino = ReleasedGravitinoTest.releasedGravitino();
      Class<?> spi = Class.forName(ReleasedGravitinoTest.SPI, true, gravitino);
      executor = Class.forName(ShadedJarTest.PLUGIN_CLASS, true, gravitino)
          .getDeclaredConstructor().newInstance();
      ReleasedGravitinoTest.invoke(executor, spi.getMethod("initialize", Map.class),
          Map.of("class", ShadedJarTest.PLUGIN_CLASS, "target", server.address));
      manager = new JobManager(gravitino, spi, executor, d.resolve("gravitino-staging"));
    }

    /** Where the application finds a staged file: the start of its URI. */
    String stagedPrefix() {
      return s3 != null ? s3.endpoint + "/" + S3rver.BUCKET + "/sha256/"
          : "local://" + store + "/sha256/";
    }

    /** Every stored copy of a file of this name. */
    List<Path> stored(String name) throws Exception {
      if (s3 != null) {
        return s3.objectsNamed(name);
      }
      try (Stream<Path> files = Files.walk(store)) {
        return files.filter(p -> Files.isRegularFile(p)
            && p.getFileName().toString().equals(name)).toList();
      }
    }

    void stop() throws Throwable {
      ReleasedGravitinoTest.invoke(executor, manager.spi.getMethod("close"));
      int code = server.proc.stop();
      cluster.proc.stop();
      if (s3 != null) {
        s3.stop();
      }
      assertEquals(0, code, server.proc.name + " exited with " + code);
      assertFalse(server.log().contains(SECRET), "the store's secret in the service's log");
    }
  }

  /**
   * Gravitino 1.3.0's job manager around its executor, on its own classes: the staging layout,
   * the fetch of every file into it, the submit with local paths, the poll and the cancel.
   */
  static final class JobManager {
    final ClassLoader gravitino;
    final Class<?> spi;
    final Object executor;
    final Path stagingDir;
    private final SecureRandom ids = new SecureRandom();

    JobManager(ClassLoader gravitino, Class<?> spi, Object executor, Path stagingDir) {
      this.gravitino = gravitino;
      this.spi = spi;
      this.executor = executor;
      this.stagingDir = stagingDir;
    }

    long newJobId() {
      return ids.nextLong() & Long.MAX_VALUE;
    }

    /** The file a {@code file:} URI names, fetched (copied) into the job's directory. */
    private static String fetch(String uri, Path jobDir) throws Exception {
      Path source = Paths.get(URI.create(uri));
      Path local = jobDir.resolve(source.getFileName().toString());
      Files.copy(source, local, StandardCopyOption.REPLACE_EXISTING);
      return local.toAbsolutePath().toString();
    }

    /** runJob: the execution id submitJob answered. */
    String runJob(long jobId, String template, String executable, List<String> jars,
        List<String> files, Map<String, String> configs) throws Throwable {
      Path jobDir = Files.createDirectories(
          stagingDir.resolve(METALAKE).resolve(template).resolve("job-" + jobId));
      List<String> localJars = new ArrayList<>();
      for (String j : jars) {
        localJars.add(fetch(j, jobDir));
      }
      List<String> localFiles = new ArrayList<>();
      for (String f : files) {
        localFiles.add(fetch(f, jobDir));
      }
      Class<?> spark = Class.forName("org.apache.gravitino.job.SparkJobTemplate", true, gravitino);
      Object b = ReleasedGravitinoTest.invoke(null, spark.getMethod("builder"));
      b = call(b, "withName", String.class, template);
      b = call(b, "withExecutable", String.class, fetch(executable, jobDir));
      b = call(b, "withClassName", String.class, "org.apache.spark.examples.SparkPi");
      b = call(b, "withArguments", List.class, List.of("10"));
      b = call(b, "withJars", List.class, localJars);
      b = call(b, "withFiles", List.class, localFiles);
      b = call(b, "withConfigs", Map.class, configs);
      Object runtime = ReleasedGravitinoTest.invoke(b, b.getClass().getMethod("build"));
      Class<?> jobTemplate = Class.forName("org.apache.gravitino.job.JobTemplate", true, gravitino);
      return (String) ReleasedGravitinoTest.invoke(executor,
          spi.getMethod("submitJob", jobTemplate), runtime);
    }

    private static Object call(Object builder, String method, Class<?> type, Object arg)
        throws Throwable {
      return ReleasedGravitinoTest.invoke(builder, builder.getClass().getMethod(method, type), arg);
    }

    /** One poll of one job: its new status, as the job manager would record it. */
    String poll(String executionId, String current) throws Throwable {
      Method status = spi.getMethod("getJobStatus", String.class);
      try {
        return String.valueOf(ReleasedGravitinoTest.invoke(executor, status, executionId));
      } catch (Error e) {
        throw new AssertionError("getJobStatus threw an Error, which ends the poll for good", e);
      } catch (Exception e) {
        if (e.getClass().getName().equals("org.apache.gravitino.exceptions.NoSuchJobException")) {
          return current.equals("CANCELLING") ? "CANCELLED" : "FAILED";
        }
        return current; // logged and tried again on the next poll
      }
    }

    void cancel(String executionId) throws Throwable {
      ReleasedGravitinoTest.invoke(executor, spi.getMethod("cancelJob", String.class),
          executionId);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    boolean have = Processes.BINARY != null && Processes.KUBESIM != null;
    if (!have && "1".equals(System.getenv("KJE_E2E_REQUIRED"))) {
      fail("KJE_BINARY and KJE_KUBESIM must name the k8s-job-executor and kubesim binaries");
    }
    Assumptions.assumeTrue(have, "KJE_BINARY/KJE_KUBESIM not set: no end-to-end run");
    // The service's artifact staging is built on its own branch; until a tree has it, there is
    // no UploadArtifacts to run against. Asked of the sources, not the running server, so a
    // tree that has staging always runs (and must pass) this test.
    Assumptions.assumeTrue(Processes.read(Processes.SOURCE_DIR.resolve("server/config_keys.cc"))
        .contains("\"staging.store\""), "this tree's service has no artifact staging yet");
    ReleasedGravitinoTest.compileTheReleasedSpi();
    Path work = Path.of(System.getProperty("kje.workDir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(work);
    dir = Files.createTempDirectory(work, "released-e2e-");
    // What the template's author has on the Gravitino server, and nowhere else.
    userFiles = Files.createDirectories(dir.resolve("user"));
    jarBytes = new byte[300 * 1024];
    new Random(45).nextBytes(jarBytes);
    Files.write(userFiles.resolve("pi.jar"), jarBytes);
    Files.writeString(userFiles.resolve("helper.py"), "def pi():\n    return 3.14\n");
  }

  @AfterAll
  static void stop() throws Throwable {
    for (Backend b : backends.values()) {
      b.stop();
    }
  }

  private static synchronized Backend backend(String operator, String store) throws Throwable {
    Backend b = backends.get(operator + "/" + store);
    if (b == null) {
      b = new Backend(operator, store);
      backends.put(operator + "/" + store, b);
    }
    return b;
  }

  /** Every operator on every staging store. */
  static Stream<Arguments> operatorsAndStores() {
    return Stream.of("apache", "kubeflow")
        .flatMap(op -> Stream.of("volume", "s3").map(store -> Arguments.of(op, store)));
  }

  private static String uri(String name) {
    return userFiles.resolve(name).toUri().toString();
  }

  /** Polls as the job manager does until {@code wanted} or a terminal status; all seen. */
  private static List<String> pollUntil(JobManager m, String id, String from, String wanted)
      throws Throwable {
    List<String> seen = new ArrayList<>(List.of(from));
    List<String> terminal = List.of("SUCCEEDED", "FAILED", "CANCELLED");
    Processes.waitFor(id + " to be " + wanted, OPERATOR_WAIT_MS, () -> {
      String s;
      try {
        s = m.poll(id, seen.get(seen.size() - 1));
      } catch (Throwable t) {
        throw new AssertionError(t);
      }
      if (!s.equals(seen.get(seen.size() - 1))) {
        seen.add(s);
      }
      return s.equals(wanted) || terminal.contains(s) ? s : null;
    });
    assertEquals(wanted, seen.get(seen.size() - 1), "statuses seen: " + seen);
    return seen;
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("operatorsAndStores")
  void aJobWhoseFilesOnlyGravitinoHasRunsToSuccess(String operator, String store)
      throws Throwable {
    Backend b = backend(operator, store);
    long jobId = b.manager.newJobId();
    String id = b.manager.runJob(jobId, "spark-pi", uri("pi.jar"), List.of(),
        List.of(uri("helper.py")), Map.of("kubesim.outcome", "succeed", "kubesim.durationMs",
            "2000"));
    // The job manager's id, read back from its staging directory, names the application.
    assertEquals("default/sparkapp/default/gravitino-job-" + jobId, id);
    // It names the staged copies, never a path on the Gravitino server.
    String app = b.cluster.get(appPath(operator, jobId));
    assertTrue(app.contains(b.stagedPrefix()), app);
    assertFalse(app.contains(SECRET), app);
    assertTrue(app.contains("/pi.jar") && app.contains("/helper.py"), app);
    assertFalse(app.contains("gravitino-staging"), app);
    assertFalse(app.contains(userFiles.toString()), app);
    assertTrue(Pattern.compile("\"gravitino.apache.org/metalake\"\\s*:\\s*\"" + METALAKE + "\"")
        .matcher(app).find(), app);
    pollUntil(b.manager, id, "QUEUED", "SUCCEEDED");

    // The jar the job ran is the one on the Gravitino server, stored once however many jobs
    // name it: a second job with the same jar stores nothing new.
    List<Path> jars = b.stored("pi.jar");
    assertEquals(1, jars.size(), jars.toString());
    assertTrue(Arrays.equals(jarBytes, Files.readAllBytes(jars.get(0))));
    long second = b.manager.newJobId();
    assertNotEquals(jobId, second);
    String id2 = b.manager.runJob(second, "spark-pi", uri("pi.jar"), List.of(),
        List.of(uri("helper.py")), Map.of("kubesim.outcome", "succeed", "kubesim.durationMs",
            "500"));
    pollUntil(b.manager, id2, "QUEUED", "SUCCEEDED");
    assertEquals(jars, b.stored("pi.jar"));
    assertEquals(1, b.stored("helper.py").size());
  }

  private static String appPath(String operator, long jobId) {
    return "/apis/" + (operator.equals("kubeflow") ? "sparkoperator.k8s.io/v1beta2"
        : "spark.apache.org/v1") + "/namespaces/default/sparkapplications/gravitino-job-" + jobId;
  }

  /**
   * Nothing of a job is left once its application is gone: its staged files (bytes no other job
   * has) are kept while the application names them, past the sweep's grace period, and removed
   * by the sweep after it.
   */
  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("operatorsAndStores")
  void theStagedFilesGoWithTheApplication(String operator, String store) throws Throwable {
    Backend b = backend(operator, store);
    byte[] own = new byte[64 * 1024];
    new SecureRandom().nextBytes(own);
    Path jobFiles = Files.createTempDirectory(userFiles, "own-");
    Files.write(jobFiles.resolve("own.jar"), own);
    Files.writeString(jobFiles.resolve("own.py"), "# " + Long.toHexString(jobFiles.hashCode())
        + System.nanoTime() + "\n");
    long jobId = b.manager.newJobId();
    String id = b.manager.runJob(jobId, "own-pi", jobFiles.resolve("own.jar").toUri().toString(),
        List.of(), List.of(jobFiles.resolve("own.py").toUri().toString()),
        Map.of("kubesim.outcome", "succeed", "kubesim.durationMs", "300"));
    pollUntil(b.manager, id, "QUEUED", "SUCCEEDED");
    assertEquals(1, b.stored("own.jar").size());
    assertEquals(1, b.stored("own.py").size());
    // A file uploaded after them that no application names (its submit refused: a conf key
    // with a control character) goes once past the grace period; when it has gone, the sweeps
    // have judged the job's older files too, and kept them: the application names them.
    byte[] probe = new byte[1024];
    new SecureRandom().nextBytes(probe);
    Files.write(jobFiles.resolve("probe.jar"), probe);
    try {
      b.manager.runJob(b.manager.newJobId(), "probe-pi",
          jobFiles.resolve("probe.jar").toUri().toString(), List.of(), List.of(),
          Map.of("bad\u0001key", "x"));
      fail("a conf key with a control character was accepted");
    } catch (Exception e) {
      assertTrue(String.valueOf(e.getMessage()).contains("control character"), e.toString());
    }
    assertEquals(1, b.stored("probe.jar").size());
    Processes.waitFor("the unnamed upload to be swept", OPERATOR_WAIT_MS, () -> {
      try {
        return b.stored("probe.jar").isEmpty() ? "" : null;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    assertEquals(1, b.stored("own.jar").size());
    assertEquals(1, b.stored("own.py").size());

    b.cluster.delete(appPath(operator, jobId));
    Processes.waitFor("the application to be gone", OPERATOR_WAIT_MS,
        () -> b.cluster.status(appPath(operator, jobId)) == 404 ? "" : null);
    Processes.waitFor("the job's staged files to be removed", OPERATOR_WAIT_MS, () -> {
      try {
        return b.stored("own.jar").isEmpty() && b.stored("own.py").isEmpty() ? "" : null;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    // The job is gone for Gravitino too.
    assertEquals("FAILED", b.manager.poll(id, "SUCCEEDED"));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("operatorsAndStores")
  void aCancelledJob(String operator, String store) throws Throwable {
    Backend b = backend(operator, store);
    // Files of its own: its application goes with the cancel, and with it what names them.
    Path own = Files.createTempDirectory(userFiles, "cancel-");
    byte[] jar = new byte[4096];
    new SecureRandom().nextBytes(jar);
    Files.write(own.resolve("cancel.jar"), jar);
    long jobId = b.manager.newJobId();
    String id = b.manager.runJob(jobId, "long-pi", own.resolve("cancel.jar").toUri().toString(),
        List.of(), List.of(),
        Map.of("kubesim.outcome", "succeed", "kubesim.durationMs", "600000"));
    pollUntil(b.manager, id, "QUEUED", "STARTED");
    b.manager.cancel(id);
    pollUntil(b.manager, id, "CANCELLING", "CANCELLED");
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("operatorsAndStores")
  void aFailingJobFails(String operator, String store) throws Throwable {
    Backend b = backend(operator, store);
    String id = b.manager.runJob(b.manager.newJobId(), "failing-pi", uri("pi.jar"), List.of(),
        List.of(uri("helper.py")), Map.of("kubesim.outcome", "fail", "kubesim.durationMs", "500"));
    pollUntil(b.manager, id, "QUEUED", "FAILED");
  }
}
