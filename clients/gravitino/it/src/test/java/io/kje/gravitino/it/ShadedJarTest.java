package io.kje.gravitino.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.collect.ImmutableList;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.commons.lang3.StringUtils;
import org.apache.gravitino.connector.job.JobExecutor;
import org.junit.jupiter.api.Test;

/** The shaded jar as Gravitino's server class path holds it. */
class ShadedJarTest {
  static final String PLUGIN_CLASS = "io.kje.gravitino.KjeJobExecutor";
  static final String SHADED = "io/kje/gravitino/shaded/";

  static File jarOf(Class<?> c) {
    try {
      return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError(e);
    }
  }

  static File pluginJar() throws ClassNotFoundException {
    File jar = jarOf(Class.forName(PLUGIN_CLASS));
    assertTrue(jar.isFile() && jar.getName().startsWith("kje-gravitino-job-executor-"),
        "the plugin is loaded from the shaded jar, not " + jar);
    return jar;
  }

  private static boolean allowed(String name) {
    return name.endsWith("/") // directories
        || name.equals("META-INF/MANIFEST.MF")
        || name.startsWith("META-INF/services/io.kje.gravitino.shaded.")
        || name.matches("META-INF/native/libio_kje_gravitino_shaded_netty_tcnative_linux_\\w+\\.so")
        || name.startsWith("io/kje/gravitino/")
        || name.startsWith("io/kje/jobexecutor/v1/");
  }

  @Test
  void bundlesOnlyRelocatedDependenciesAndThePluginsOwnClasses() throws Exception {
    List<String> outside = new ArrayList<>();
    TreeSet<String> shadedTops = new TreeSet<>();
    int classes = 0;
    try (JarFile jar = new JarFile(pluginJar())) {
      for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        String name = entry.getName();
        if (!allowed(name)) {
          outside.add(name);
        }
        if (name.endsWith(".class")) {
          classes++;
          if (name.startsWith(SHADED)) {
            String[] parts = name.substring(SHADED.length()).split("/");
            shadedTops.add(parts[0] + "." + parts[1] + (parts.length > 3 ? "." + parts[2] : ""));
          }
        }
        if (name.startsWith("META-INF/services/")) {
          try (InputStream in = jar.getInputStream(entry)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
              String l = line.trim();
              if (!l.isEmpty() && !l.startsWith("#")) {
                assertTrue(l.startsWith("io.kje.gravitino.shaded."), name + " lists " + l);
              }
            }
          }
        }
      }
      assertTrue(jar.getEntry("META-INF/native/libio_kje_gravitino_shaded_netty_tcnative_linux_"
          + nettyArch() + ".so") != null, "netty-tcnative's library is bundled");
      assertTrue(jar.getEntry("META-INF/services/io.kje.gravitino.shaded.io.grpc"
          + ".ManagedChannelProvider") != null, "gRPC's services files are merged and relocated");
    }
    assertEquals(List.of(), outside, "entries outside the plugin's package");
    assertTrue(classes > 1000, "classes: " + classes);
    assertEquals(
        new TreeSet<>(List.of("com.google.common", "com.google.protobuf", "com.google.thirdparty",
            "io.grpc", "io.netty", "io.perfmark")),
        new TreeSet<>(shadedTops.stream().map(ShadedJarTest::topOf).toList()),
        "relocated packages: " + shadedTops);
    System.out.println("bundled, relocated under io.kje.gravitino.shaded: " + shadedTops);
  }

  private static String topOf(String pkg) {
    String[] p = pkg.split("\\.");
    return p[0].equals("com") ? p[0] + "." + p[1] + "." + p[2] : p[0] + "." + p[1];
  }

  private static String nettyArch() {
    String arch = System.getProperty("os.arch");
    return arch.equals("amd64") ? "x86_64" : arch.equals("aarch64") ? "aarch_64" : arch;
  }

  /**
   * A class loader with only what Gravitino's server gives a plugin: the SPI, Guava and
   * commons-lang3; the JDK's platform classes as parent, so nothing of this test's class path.
   */
  static URLClassLoader gravitinoLikeLoader() throws Exception {
    URL[] urls = {pluginJar().toURI().toURL(), jarOf(JobExecutor.class).toURI().toURL(),
        jarOf(ImmutableList.class).toURI().toURL(), jarOf(StringUtils.class).toURI().toURL()};
    return new URLClassLoader("gravitino-like", urls, ClassLoader.getPlatformClassLoader());
  }

  private static Object call(Object target, Class<?> type, String method, Class<?>[] params,
      Object... args) throws Throwable {
    Method m = type.getMethod(method, params);
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void loadsByClassNameOnAGravitinoLikeClassPath() throws Throwable {
    // Not closed: gRPC's shared event loop outlives close() by a moment and may still load
    // classes from the jar, as it would on Gravitino's (never closed) application class loader.
    URLClassLoader loader = gravitinoLikeLoader();
    {
      Class<?> spi = Class.forName("org.apache.gravitino.connector.job.JobExecutor", true, loader);
      assertNotSame(JobExecutor.class, spi);
      // Loaded the way JobExecutorFactory does: by name, no-argument constructor.
      Class<?> plugin = Class.forName(PLUGIN_CLASS, true, loader);
      assertTrue(spi.isAssignableFrom(plugin));
      assertThrows(ClassNotFoundException.class,
          () -> Class.forName("io.grpc.ManagedChannel", false, loader));
      assertThrows(ClassNotFoundException.class,
          () -> Class.forName("io.netty.channel.Channel", false, loader));

      Object executor = plugin.getDeclaredConstructor().newInstance();
      Class<?>[] mapArg = {Map.class};
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> call(executor, spi, "initialize", mapArg, Map.of("target", "kje")));
      assertTrue(bad.getMessage().startsWith("target must be host:port"), bad.getMessage());

      // TLS from the jar alone, no JVM flags: the relocated netty loads the bundled OpenSSL
      // binding (initialize builds the TLS context, and fails naming the cause if it can't).
      call(executor, spi, "initialize", mapArg,
          Map.of("target", "127.0.0.1:1", "tls.enabled", "true", "retry.maxAttempts", "1"));
      // Nothing listens on port 1: the output call still answers, empty, without throwing.
      Object lines = call(executor, spi, "getJobStdout",
          new Class<?>[] {String.class, int.class, int.class}, "default/sparkapp/default/x", 1, 1);
      assertEquals(List.of(), lines);
      call(executor, spi, "close", new Class<?>[0]);
    }
  }

  @Test
  void theSpiDeclarationsAreNotBundled() throws IOException, ClassNotFoundException {
    try (JarFile jar = new JarFile(pluginJar())) {
      assertEquals(null, jar.getEntry("org/apache/gravitino/connector/job/JobExecutor.class"));
      assertEquals(null, jar.getEntry("org/slf4j/Logger.class"));
    }
  }
}
