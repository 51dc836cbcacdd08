package io.kje.gravitino.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.FormatMethod;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.annotation.Nullable;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.commons.lang3.StringUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar on a Gravitino whose JobExecutor SPI is the one released up to 1.3.0, compiled
 * here from that release's own sources, and called the way that Gravitino calls an executor: by
 * class name, no-argument constructor, {@code initialize} with the prefix-stripped keys, then only
 * the methods of its JobExecutor interface. It starts, and none of those methods throws an Error
 * (the released job manager catches only Exceptions); {@link ReleasedEndToEndTest} runs jobs.
 */
class ReleasedGravitinoTest {
  static final String SPI = "org.apache.gravitino.connector.job.JobExecutor";
  static final Map<String, String> CONFIG =
      Map.of("target", "127.0.0.1:1", "retry.maxAttempts", "1");

  static File releasedSpiClasses;

  private static File property(String name) {
    String value = System.getProperty(name);
    assertTrue(value != null, name + " is set by the pom");
    return new File(value);
  }

  @BeforeAll
  static void compileTheReleasedSpi() throws IOException {
    File sources = property("kje.releasedSpiSources");
    assertTrue(new File(sources, "core/src/main/java/org/apache/gravitino/connector/job/"
        + "JobExecutor.java").isFile(), "the released SPI's sources are at " + sources);
    releasedSpiClasses = property("kje.releasedSpiClasses");
    List<String> args = new ArrayList<>(List.of("--release", "17", "-proc:none", "-nowarn",
        "-d", releasedSpiClasses.getPath(), "-cp", String.join(File.pathSeparator,
            ShadedJarTest.jarOf(ImmutableList.class).getPath(),
            ShadedJarTest.jarOf(StringUtils.class).getPath(),
            ShadedJarTest.jarOf(FormatMethod.class).getPath(),
            ShadedJarTest.jarOf(Nullable.class).getPath())));
    try (Stream<Path> files = Files.walk(sources.toPath())) {
      files.filter(p -> p.toString().endsWith(".java")).sorted()
          .forEach(p -> args.add(p.toString()));
    }
    Files.createDirectories(releasedSpiClasses.toPath());
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = javac.run(null, null, new PrintStream(err, true, StandardCharsets.UTF_8),
        args.toArray(new String[0]));
    assertEquals(0, rc, "javac of the released SPI: " + err.toString(StandardCharsets.UTF_8));
  }

  /** Gravitino's class path as far as a plugin sees it: the released SPI, Guava, commons-lang3. */
  static URLClassLoader releasedGravitino() throws Exception {
    URL[] urls = {ShadedJarTest.pluginJar().toURI().toURL(), releasedSpiClasses.toURI().toURL(),
        ShadedJarTest.jarOf(ImmutableList.class).toURI().toURL(),
        ShadedJarTest.jarOf(StringUtils.class).toURI().toURL()};
    return new URLClassLoader("gravitino-1.3", urls, ClassLoader.getPlatformClassLoader());
  }

  static Object invoke(Object target, Method m, Object... args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** What the released factory does with an executor's class: by name, then initialize. */
  static Object create(ClassLoader loader, Class<?> spi) throws Throwable {
    Object executor = Class.forName(ShadedJarTest.PLUGIN_CLASS, true, loader)
        .getDeclaredConstructor().newInstance();
    invoke(executor, spi.getMethod("initialize", Map.class), CONFIG);
    return executor;
  }

  @Test
  void initializeSucceedsOnTheReleasedSpi() throws Throwable {
    URLClassLoader loader = releasedGravitino();
    Class<?> spi = Class.forName(SPI, true, loader);
    // Sure that this is the released SPI, not the plugin's compile-time declarations.
    assertEquals(releasedSpiClasses.toURI().toURL(),
        spi.getProtectionDomain().getCodeSource().getLocation());
    assertThrows(NoSuchMethodException.class, () -> spi.getMethod("getJobExecutionInfo",
        String.class));
    assertThrows(ClassNotFoundException.class,
        () -> Class.forName("org.apache.gravitino.connector.job.JobContext", false, loader));
    assertTrue(Modifier.isAbstract(spi.getMethod("getJobStatus", String.class).getModifiers()));
    assertTrue(spi.isAssignableFrom(Class.forName(ShadedJarTest.PLUGIN_CLASS, false, loader)));
    invoke(create(loader, spi), spi.getMethod("close"));
  }

  @Test
  void noMethodOfTheReleasedSpiThrowsAnError() throws Throwable {
    URLClassLoader loader = releasedGravitino();
    Class<?> spi = Class.forName(SPI, true, loader);
    Class<?> plugin = Class.forName(ShadedJarTest.PLUGIN_CLASS, true, loader);
    Object template = sparkTemplate(loader);
    Object fresh = plugin.getDeclaredConstructor().newInstance();
    Object started = create(loader, spi);

    Map<String, String> outcomes = new TreeMap<>();
    List<Method> methods = new ArrayList<>(Arrays.asList(spi.getMethods()));
    // As a job's life goes, close last; the fresh plugin is initialized only after its calls.
    List<String> order = List.of("submitJob", "getJobStatus", "cancelJob", "initialize", "close");
    methods.sort(Comparator.comparing(m -> order.indexOf(m.getName())));
    assertEquals(order.size(), methods.size(), methods.toString());
    for (Object executor : List.of(started, fresh)) {
      String which = executor == fresh ? "fresh " : "started ";
      for (Method m : methods) {
        Object[] args = Arrays.stream(m.getParameterTypes()).map(t -> {
          if (t == Map.class) {
            return CONFIG;
          }
          if (t == String.class) {
            return "default/sparkapp/default/gravitino-job-1";
          }
          if (t.isInstance(template)) {
            return template;
          }
          throw new AssertionError("no argument for " + t + " of " + m);
        }).toArray();
        String signature = which + m.getName() + Arrays.toString(m.getParameterTypes());
        try {
          invoke(executor, m, args);
          outcomes.put(signature, "returns");
        } catch (Error e) {
          fail(signature + " threw an Error", e);
        } catch (Throwable e) {
          assertInstanceOf(RuntimeException.class, e, signature);
          outcomes.put(signature, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      }
    }
    System.out.println("released-SPI calls: " + outcomes);
    // Nothing listens on port 1: a started plugin's calls end as unavailable, an Exception the
    // job manager logs; the fresh one's as not initialized, until its initialize (run last).
    String unavailable = "RuntimeException: k8s-job-executor at 127.0.0.1:1 is unavailable for ";
    String notInitialized =
        "IllegalStateException: The k8s-job-executor plugin is not initialized";
    assertEquals(Map.of(
        "fresh cancelJob[class java.lang.String]", notInitialized,
        "fresh close[]", "returns",
        "fresh getJobStatus[class java.lang.String]", notInitialized,
        "fresh initialize[interface java.util.Map]", "returns",
        "fresh submitJob[class org.apache.gravitino.job.JobTemplate]", notInitialized,
        "started cancelJob[class java.lang.String]", unavailable + "Cancel",
        "started close[]", "returns",
        "started getJobStatus[class java.lang.String]", unavailable + "Status",
        "started initialize[interface java.util.Map]",
        "IllegalStateException: The k8s-job-executor plugin is already initialized",
        "started submitJob[class org.apache.gravitino.job.JobTemplate]", unavailable + "Submit"),
        trimmed(outcomes));
  }

  // An unavailable message goes on with the attempts and gRPC's reason, which vary.
  private static Map<String, String> trimmed(Map<String, String> outcomes) {
    Map<String, String> out = new TreeMap<>();
    outcomes.forEach((k, v) -> out.put(k, v.replaceFirst("(is unavailable for \\w+) .*", "$1")));
    return out;
  }

  private static Object sparkTemplate(ClassLoader loader) throws Throwable {
    Class<?> spark = Class.forName("org.apache.gravitino.job.SparkJobTemplate", true, loader);
    Object builder = invoke(null, spark.getMethod("builder"));
    for (String[] field : new String[][] {{"withName", "pi"},
        {"withExecutable", "local:///opt/spark/examples/jars/spark-examples.jar"}}) {
      builder = invoke(builder, builder.getClass().getMethod(field[0], String.class), field[1]);
    }
    Object template = invoke(builder, builder.getClass().getMethod("build"));
    assertEquals("SPARK", String.valueOf(invoke(template, spark.getMethod("jobType"))));
    return template;
  }

  @Test
  void onTheNewestSpiInitializeSucceedsAndTheOldStatusMethodWorks() throws Throwable {
    URLClassLoader loader = ShadedJarTest.gravitinoLikeLoader();
    Class<?> spi = Class.forName(SPI, true, loader);
    spi.getMethod("getJobExecutionInfo", String.class);
    Object executor = create(loader, spi);
    try {
      // Nothing listens on port 1: the poll gets the plugin's unavailable error, an Exception.
      RuntimeException e = assertThrows(RuntimeException.class,
          () -> invoke(executor, spi.getMethod("getJobStatus", String.class),
              "default/sparkapp/default/gravitino-job-1"));
      assertTrue(e.getMessage().startsWith("k8s-job-executor at 127.0.0.1:1 is unavailable for"
          + " Status"), e.getMessage());
    } finally {
      invoke(executor, spi.getMethod("close"));
    }
  }
}
