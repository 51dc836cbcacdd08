package io.kje.gravitino;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gravitino's job id and metalake, read back from where a released Gravitino (1.x, up to 1.3.0)
 * put a job's files.
 *
 * <p>That Gravitino never tells its executor which job it submits: its job manager makes the
 * directory {@code <gravitino.job.stagingDir>/<metalake>/<template name>/job-<id>/}, fetches the
 * template's executable, jars, files and archives into it, and hands over the template with those
 * local paths. So the directory the localized files share names the job. When the paths don't
 * show that layout (a job manager that fetches elsewhere), the plugin makes up an id of the same
 * shape and no metalake: then a retried {@code runJob} is a new job, as it is on that Gravitino
 * anyway, and only the plugin's own retries of one submit adopt the same application.
 */
final class StagingLayout {
  private StagingLayout() {}

  private static final Pattern JOB_DIR = Pattern.compile("job-([1-9][0-9]{0,18})");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A job's identity for Submit. */
  static final class Job {
    private final String jobId;
    private final String metalake;
    private final boolean recovered;

    Job(String jobId, String metalake, boolean recovered) {
      this.jobId = jobId;
      this.metalake = metalake;
      this.recovered = recovered;
    }

    String jobId() {
      return jobId;
    }

    /** Empty when not recovered. */
    String metalake() {
      return metalake;
    }

    /** False when the id was generated because the layout didn't match. */
    boolean recovered() {
      return recovered;
    }
  }

  /**
   * The job the localized files belong to, or null when they don't show the layout: every path
   * must be absolute and sit directly in one directory {@code job-<id>} whose parent is named after
   * the template and whose grandparent (the metalake) exists.
   */
  static Job recover(String templateName, Collection<Path> localized) {
    if (templateName == null || templateName.isEmpty() || localized.isEmpty()) {
      return null;
    }
    Path jobDir = null;
    for (Path p : localized) {
      Path parent = p.isAbsolute() ? p.normalize().getParent() : null;
      if (parent == null || (jobDir != null && !jobDir.equals(parent))) {
        return null;
      }
      jobDir = parent;
    }
    Path templateDir = jobDir.getParent();
    Path metalakeDir = templateDir == null ? null : templateDir.getParent();
    if (jobDir.getFileName() == null || metalakeDir == null || metalakeDir.getFileName() == null
        || !Objects.equals(templateDir.getFileName().toString(), templateName)) {
      return null;
    }
    Matcher m = JOB_DIR.matcher(jobDir.getFileName().toString());
    if (!m.matches()) {
      return null;
    }
    try {
      Long.parseLong(m.group(1)); // 19 digits may still overflow a long, which no Gravitino id does
    } catch (NumberFormatException e) {
      return null;
    }
    return new Job(m.group(1), metalakeDir.getFileName().toString(), true);
  }

  /** An id of Gravitino's shape (a positive long) for a job whose layout didn't match. */
  static Job generated() {
    long id;
    do {
      id = RANDOM.nextLong() & Long.MAX_VALUE;
    } while (id == 0);
    return new Job(Long.toString(id), "", false);
  }
}
