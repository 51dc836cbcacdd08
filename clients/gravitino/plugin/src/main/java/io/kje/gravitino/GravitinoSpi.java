package io.kje.gravitino;

import java.lang.reflect.Method;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.gravitino.connector.job.JobExecutor;

/**
 * Which of Gravitino's two JobExecutor SPIs loaded the plugin: the JobContext-based one of
 * Gravitino's main branch, which passes Gravitino's job id, metalake and the template's URIs, or
 * the one released up to 1.3.0, which passes only a template whose files it fetched into its
 * staging directory. The plugin runs on both; this tells them apart, and says what is missing on
 * a Gravitino that has neither.
 *
 * <p>The question is put to the JobExecutor interface that Gravitino's class loader actually
 * resolved for the plugin, and the other SPI classes are looked up by name beside it: on the
 * released Gravitino a class literal of JobContext or JobExecutionInfo would throw
 * NoClassDefFoundError, an Error, which Gravitino's job manager doesn't catch.
 */
final class GravitinoSpi {
  private GravitinoSpi() {}

  /** The SPI Gravitino calls the plugin through. */
  enum Kind {
    /** submitJob(JobContext, JobTemplate), getJobExecutionInfo, the output methods. */
    JOB_CONTEXT,
    /** Gravitino 1.x up to 1.3.0: submitJob(JobTemplate), getJobStatus, cancelJob. */
    RELEASED
  }

  static final String PACKAGE = "org.apache.gravitino.connector.job.";
  static final String NEEDED =
      "The k8s-job-executor plugin needs Gravitino's JobExecutor SPI, either as released in"
          + " Gravitino 1.x (JobExecutor#submitJob(JobTemplate), getJobStatus(String),"
          + " cancelJob(String)) or JobContext-based (JobExecutor#submitJob(JobContext,"
          + " JobTemplate), getJobExecutionInfo(String), cancelJob(String))";

  // The methods Gravitino must call the plugin through: as printed, name, parameter types.
  private static final String[][] JOB_CONTEXT_METHODS = {
    {"submitJob(JobContext, JobTemplate)", "submitJob",
        PACKAGE + "JobContext", "org.apache.gravitino.job.JobTemplate"},
    {"getJobExecutionInfo(String)", "getJobExecutionInfo", "java.lang.String"},
    {"cancelJob(String)", "cancelJob", "java.lang.String"},
  };
  private static final String[][] RELEASED_METHODS = {
    {"submitJob(JobTemplate)", "submitJob", "org.apache.gravitino.job.JobTemplate"},
    {"getJobStatus(String)", "getJobStatus", "java.lang.String"},
    {"cancelJob(String)", "cancelJob", "java.lang.String"},
  };

  /** What {@link #check} found: a kind, or the problem. */
  static final class Found {
    final Kind kind;
    final String problem;

    Found(Kind kind, String problem) {
      this.kind = kind;
      this.problem = problem;
    }
  }

  private static final class Once {
    // Computed once: the plugin's class loader sees exactly one JobExecutor.
    static final Found FOUND = check(JobExecutor.class);
  }

  /** The SPI of this Gravitino, or null when it has neither (see {@link #problem}). */
  static Kind kind() {
    return Once.FOUND.kind;
  }

  /** Null when this Gravitino has one of the SPIs; otherwise what is missing, in full. */
  static String problem() {
    return Once.FOUND.problem;
  }

  /** Throws when this Gravitino has neither SPI: Gravitino then fails to create the executor. */
  static Kind require() {
    if (Once.FOUND.kind == null) {
      throw new IllegalStateException(Once.FOUND.problem);
    }
    return Once.FOUND.kind;
  }

  /** Which SPI {@code spi} is, the JobContext one first, or why neither. */
  static Found check(Class<?> spi) {
    List<String> lackingNewer = new ArrayList<>();
    List<String> lackingReleased = new ArrayList<>();
    TreeSet<String> declared = new TreeSet<>();
    try {
      for (String[] required : JOB_CONTEXT_METHODS) {
        if (!declares(spi, required)) {
          lackingNewer.add(required[0]);
        }
      }
      for (String[] required : RELEASED_METHODS) {
        if (!declares(spi, required)) {
          lackingReleased.add(required[0]);
        }
      }
      for (Method m : spi.getDeclaredMethods()) {
        declared.add(shortSignature(m));
      }
    } catch (LinkageError | RuntimeException e) {
      return new Found(null, NEEDED + ". This Gravitino's " + spi.getName() + where(spi)
          + " can't be inspected: " + e);
    }
    List<String> classes = new ArrayList<>();
    for (String simple : List.of("JobContext", "JobExecutionInfo")) {
      if (!loadable(PACKAGE + simple, spi.getClassLoader())) {
        classes.add(PACKAGE + simple);
      }
    }
    if (lackingNewer.isEmpty() && classes.isEmpty()) {
      return new Found(Kind.JOB_CONTEXT, null);
    }
    if (lackingReleased.isEmpty()) {
      return new Found(Kind.RELEASED, null);
    }
    StringBuilder found = new StringBuilder(NEEDED).append(". This Gravitino's ")
        .append(spi.getName()).append(where(spi)).append(" lacks ")
        .append(String.join(", ", lackingReleased)).append("; it declares ")
        .append(declared.isEmpty() ? "no methods" : String.join(", ", declared));
    return new Found(null, found.toString());
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
