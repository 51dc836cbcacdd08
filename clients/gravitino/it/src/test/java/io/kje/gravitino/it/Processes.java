package io.kje.gravitino.it;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Starts kubesim and k8s-job-executor as the Python harness (tests/e2e/kje.py) does: port 0, the
 * bound port read from the log, a throwaway CA and token. Every process dies with the JVM.
 */
final class Processes {
  static final String BINARY = System.getenv("KJE_BINARY");
  static final String KUBESIM = System.getenv("KJE_KUBESIM");
  static final Path SOURCE_DIR = Path.of(System.getProperty("kje.sourceDir", "../../..")).normalize();

  private static final Pattern KUBESIM_URL = Pattern.compile("kubesim listening on (https://\\S+)");
  private static final Pattern SERVER_PORT = Pattern.compile("msg=listening .*\\bport=(\\d+)");

  private Processes() {}

  /** Polls until {@code probe} yields a value, or fails after {@code timeoutMs}. */
  static <T> T waitFor(String what, long timeoutMs, Supplier<T> probe) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    T last = null;
    while (System.nanoTime() < deadline) {
      last = probe.get();
      if (last != null) {
        return last;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
    throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
  }

  static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** A started process whose output goes to files. */
  static final class Proc implements AutoCloseable {
    final Process process;
    final Path out;
    final Path err;
    final String name;

    Proc(String name, List<String> command, Path dir, Map<String, String> env) throws IOException {
      this.name = name;
      this.out = dir.resolve(name + ".out");
      this.err = dir.resolve(name + ".err");
      ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile())
          .redirectError(err.toFile());
      pb.environment().putAll(env);
      this.process = pb.start();
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    }

    String match(Path file, Pattern p) {
      if (!process.isAlive()) {
        throw new AssertionError(name + " exited with " + process.exitValue() + ":\n" + read(err)
            + read(out));
      }
      Matcher m = p.matcher(read(file));
      return m.find() ? m.group(1) : null;
    }

    /** SIGTERM, then the exit code. */
    int stop() throws InterruptedException {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      }
      return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
      stop();
    }
  }

  static final class Kubesim {
    final Proc proc;
    final Path kubeconfig;
    private HttpClient http;

    Kubesim(Path dir) throws IOException {
      this(dir, "apache");
    }

    /** With the simulated operator of {@code operator} ("apache" or "kubeflow") in default. */
    Kubesim(Path dir, String operator) throws IOException {
      kubeconfig = dir.resolve("kubeconfig");
      Path token = dir.resolve("kubesim.token");
      Files.writeString(token, Long.toHexString(System.nanoTime()) + "kubesim");
      List<String> cmd = new ArrayList<>(List.of(KUBESIM, "--listen", "127.0.0.1:0",
          "--token-file", token.toString(), "--write-kubeconfig", kubeconfig.toString(),
          "--namespaces", "spark-jobs",
          // The operator's clock runs 20 times faster than ours.
          "--time-scale", "20"));
      if (operator.equals("kubeflow")) {
        cmd.addAll(List.of("--crd-dir",
            SOURCE_DIR.resolve("crds/kubeflow-spark-operator/v2.5.2").toString(),
            "--operator-namespaces=", "--kubeflow-namespaces=default"));
      } else {
        cmd.addAll(List.of("--crd-dir",
            SOURCE_DIR.resolve("crds/apache-spark-operator/1.0.0").toString(),
            "--operator-namespaces=default"));
      }
      proc = new Proc("kubesim-" + operator, cmd, dir, Map.of());
      waitFor("kubesim to listen", 20_000,
          () -> proc.match(proc.out, KUBESIM_URL) != null && Files.exists(kubeconfig) ? "" : null);
    }

    /** GET of an API path, as kubectl would (its kubeconfig's CA and token); the body. */
    String get(String path) throws Exception {
      HttpResponse<String> r = send(path, "GET");
      if (r.statusCode() != 200) {
        throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + r.body());
      }
      return r.body();
    }

    /** DELETE of an API path, as kubectl delete (background propagation). */
    void delete(String path) throws Exception {
      HttpResponse<String> r = send(path, "DELETE");
      if (r.statusCode() != 200 && r.statusCode() != 202) {
        throw new AssertionError("DELETE " + path + ": " + r.statusCode() + " " + r.body());
      }
    }

    /** The HTTP status a GET of an API path answers (404: the object is gone). */
    int status(String path) {
      try {
        return send(path, "GET").statusCode();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    private HttpResponse<String> send(String path, String method) throws Exception {
      String config = read(kubeconfig);
      String server = field(config, "server");
      String token = field(config, "token");
      if (http == null) {
        byte[] ca = Base64.getDecoder().decode(field(config, "certificate-authority-data"));
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("kubesim", CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(ca)));
        TrustManagerFactory tmf =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        http = HttpClient.newBuilder().sslContext(tls).build();
      }
      return http.send(HttpRequest.newBuilder(URI.create(server + path))
          .method(method, HttpRequest.BodyPublishers.noBody())
          .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    }

    private static String field(String yaml, String key) {
      Matcher m = Pattern.compile("\\b" + key + ": \"?([^\"\\s]+)").matcher(yaml);
      if (!m.find()) {
        throw new AssertionError("no " + key + " in the kubeconfig");
      }
      return m.group(1);
    }
  }

  static final class Server {
    final Proc proc;
    final String address;

    Server(String name, Path dir, Path config, String... sets) throws IOException {
      this(name, dir, config, Map.of(), sets);
    }

    Server(String name, Path dir, Path config, Map<String, String> env, String... sets)
        throws IOException {
      List<String> cmd = new ArrayList<>(List.of(BINARY, "serve", "--listen", "127.0.0.1:0",
          "--config", config.toString()));
      for (String s : sets) {
        cmd.add("--set");
        cmd.add(s);
      }
      Map<String, String> full = new HashMap<>(env);
      full.put("KJE_MUTEX_DEADLOCK_DETECTION", "abort");
      proc = new Proc(name, cmd, dir, full);
      address = "127.0.0.1:" + waitFor(name + " to listen", 20_000,
          () -> proc.match(proc.err, SERVER_PORT));
    }

    String log() {
      return read(proc.err);
    }
  }

  static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
    if (p.waitFor() != 0) {
      throw new AssertionError("openssl " + String.join(" ", args) + " failed:\n"
          + read(dir.resolve("openssl.log")));
    }
  }

  /** A CA, a server certificate for 127.0.0.1/localhost and a client certificate. */
  static void makePki(Path d) throws IOException, InterruptedException {
    openssl(d, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
        "ca.crt", "-days", "2", "-subj", "/CN=kje-plugin-test-ca");
    Files.writeString(d.resolve("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
    Files.writeString(d.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
    for (String name : new String[] {"server", "client"}) {
      openssl(d, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
          name + ".csr", "-subj", "/CN=" + name);
      openssl(d, "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
          "-CAcreateserial", "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext");
    }
  }
}
