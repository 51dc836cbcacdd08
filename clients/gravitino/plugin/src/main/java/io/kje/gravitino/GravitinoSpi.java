package io.kje.gravitino;

import java.lang.reflect.Method;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.gravitino.connector.job.JobExecutor;

/**
 * Whether the Gravitino that loaded the plugin has the JobExecutor SPI the plugin is written for.
 *
 * <p>The question is put to the JobExecutor interface that Gravitino's class loader actually
 * resolved for the plugin, and the other SPI classes are looked up by name beside it: on an older
 * Gravitino a class literal of JobContext or JobExecutionInfo would throw NoClassDefFoundError, an
 * Error, which Gravitino's job manager doesn't catch.
 */
final class GravitinoSpi {
  private GravitinoSpi() {}

  static final String PACKAGE = "org.apache.gravitino.connector.job.";
  static final String NEEDED =
      "The k8s-job-executor plugin needs Gravitino's JobContext-based JobExecutor SPI"
          + " (JobExecutor#submitJob(JobContext, JobTemplate) and"
          + " JobExecutor#getJobExecutionInfo(String)), which Gravitino 1.3.0 and older don't have;"
          + " run it on a Gravitino newer than 1.3.0 that has that SPI";

  // The methods Gravitino must call the plugin through: as printed, name, parameter types.
  private static final String[][] REQUIRED = {
    {"submitJob(JobContext, JobTemplate)", "submitJob",
        PACKAGE + "JobContext", "org.apache.gravitino.job.JobTemplate"},
    {"getJobExecutionInfo(String)", "getJobExecutionInfo", "java.lang.String"},
  };

  private static final class Found {
    // Computed once: the plugin's class loader sees exactly one JobExecutor.
    static final String PROBLEM = check(JobExecutor.class);
  }

  /** Null when this Gravitino has the SPI; otherwise what is missing, in full. */
  static String problem() {
    return Found.PROBLEM;
  }

  /** Throws when this Gravitino lacks the SPI: Gravitino then fails to create the executor. */
  static void require() {
    String problem = problem();
    if (problem != null) {
      throw new IllegalStateException(problem);
    }
  }

  /** Null when {@code spi} is a JobExecutor with the JobContext SPI, else the message saying not. */
  static String check(Class<?> spi) {
    List<String> lacking = new ArrayList<>();
    TreeSet<String> declared = new TreeSet<>();
    try {
      for (String[] required : REQUIRED) {
        if (!declares(spi, required)) {
          lacking.add(required[0]);
        }
      }
      for (Method m : spi.getDeclaredMethods()) {
        declared.add(shortSignature(m));
      }
    } catch (LinkageError | RuntimeException e) {
      return NEEDED + ". This Gravitino's " + spi.getName() + where(spi)
          + " can't be inspected: " + e;
    }
    List<String> classes = new ArrayList<>();
    for (String simple : List.of("JobContext", "JobExecutionInfo")) {
      if (!loadable(PACKAGE + simple, spi.getClassLoader())) {
        classes.add(PACKAGE + simple);
      }
    }
    if (lacking.isEmpty() && classes.isEmpty()) {
      return null;
    }
    StringBuilder found = new StringBuilder(NEEDED).append(". This Gravitino's ")
        .append(spi.getName()).append(where(spi));
    if (!lacking.isEmpty()) {
      found.append(" lacks ").append(String.join(", ", lacking)).append("; it declares ")
          .append(declared.isEmpty() ? "no methods" : String.join(", ", declared));
    } else {
      found.append(" has the methods");
    }
    if (!classes.isEmpty()) {
      found.append("; not found: ").append(String.join(", ", classes));
    }
    return found.toString();
  }

  private static boolean declares(Class<?> spi, String[] required) {
    for (Method m : spi.getMethods()) {
      if (!m.getName().equals(required[1]) || m.getParameterCount() != required.length - 2) {
        continue;
      }
      Class<?>[] params = m.getParameterTypes();
      boolean same = true;
      for (int i = 0; i < params.length; i++) {
        same &= params[i].getName().equals(required[i + 2]);
      }
      if (same) {
        return true;
      }
    }
    return false;
  }

  private static boolean loadable(String name, ClassLoader loader) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static String shortSignature(Method m) {
    StringBuilder s = new StringBuilder(m.getName()).append('(');
    Class<?>[] params = m.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      s.append(i == 0 ? "" : ", ").append(params[i].getSimpleName());
    }
    return s.append(')').toString();
  }

  // Which jar the interface came from tells an operator which Gravitino answered.
  private static String where(Class<?> spi) {
    StringBuilder s = new StringBuilder();
    try {
      CodeSource source = spi.getProtectionDomain().getCodeSource();
      URL location = source == null ? null : source.getLocation();
      if (location != null) {
        s.append(" (from ").append(location);
      }
      Package p = spi.getPackage();
      String version = p == null ? null : p.getImplementationVersion();
      if (version != null) {
        s.append(s.length() == 0 ? " (" : ", ").append("version ").append(version);
      }
    } catch (SecurityException e) {
      return "";
    }
    return s.length() == 0 ? "" : s.append(')').toString();
  }
}
