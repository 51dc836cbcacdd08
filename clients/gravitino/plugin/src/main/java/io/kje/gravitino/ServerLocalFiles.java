package io.kje.gravitino;

import io.kje.jobexecutor.v1.JobTemplate;
import io.kje.jobexecutor.v1.SparkJob;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The files of a job template that only the Gravitino server can read: plain paths and
 * {@code file:} URIs in the executable, jars, files and archives. A cluster can't read them, so
 * the plugin uploads them and names the service's references instead; every other URI
 * ({@code local://}, {@code https://}, {@code s3a://}, a reference) goes through untouched. Pure:
 * reads no file.
 */
final class ServerLocalFiles {
  private ServerLocalFiles() {}

  // RFC 3986's scheme; one letter is a scheme too, so a Windows drive would not pass as a path.
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");

  /**
   * The absolute, normalized path {@code entry} names on this server, or null when it names
   * something else; a malformed {@code file:} URI or one of another host is an
   * IllegalArgumentException.
   */
  static Path localPath(String entry) {
    if (entry == null || entry.isEmpty()) {
      return null;
    }
    if (!SCHEME.matcher(entry).matches()) {
      return Paths.get(entry).toAbsolutePath().normalize();
    }
    if (!entry.regionMatches(true, 0, "file:", 0, 5)) {
      return null;
    }
    URI uri;
    try {
      uri = new URI(entry);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("The job template names " + entry
          + ", which is not a valid file URI: " + e.getMessage(), e);
    }
    String host = uri.getAuthority();
    if (host != null && !host.isEmpty() && !host.equalsIgnoreCase("localhost")) {
      throw new IllegalArgumentException("The job template names " + entry
          + ", a file on host " + host + ", which the k8s-job-executor plugin can't read");
    }
    if (uri.getRawFragment() != null || uri.getRawQuery() != null || uri.getPath() == null
        || uri.getPath().isEmpty()) {
      throw new IllegalArgumentException("The job template names " + entry
          + ": a file URI to upload must name a file, without query or fragment");
    }
    return Paths.get(uri.getPath()).toAbsolutePath().normalize();
  }

  /** The server-local files of a Spark template, each once, in order of first mention. */
  static List<Path> of(JobTemplate template) {
    Set<Path> found = new LinkedHashSet<>();
    if (!template.hasSpark()) {
      // The service refuses other job types with its own reason; nothing is uploaded for them.
      return List.of();
    }
    for (String entry : entries(template)) {
      Path p = localPath(entry);
      if (p != null) {
        found.add(p);
      }
    }
    List<Path> paths = new ArrayList<>(found);
    Map<String, Path> byName = new HashMap<>();
    for (Path p : paths) {
      Path name = p.getFileName();
      if (name == null) {
        throw new IllegalArgumentException("The job template names " + p + ", which is no file");
      }
      Path other = byName.putIfAbsent(name.toString(), p);
      if (other != null) {
        // Spark puts every file of a job side by side, so one name can only mean one file.
        throw new IllegalArgumentException("The job template names two files called " + name
            + " (" + other + " and " + p + "); a job's files need distinct names");
      }
    }
    return paths;
  }

  /** Checks that each path is a regular file this process can read, before anything is sent. */
  static void checkReadable(List<Path> paths) {
    for (Path p : paths) {
      if (!Files.isRegularFile(p)) {
        throw new IllegalArgumentException("The job template names " + p
            + ", which is not a file on the Gravitino server");
      }
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException("The job template names " + p
            + ", which the Gravitino server can't read");
      }
    }
  }

  /** The template with each server-local entry replaced by the reference of its path. */
  static JobTemplate rewrite(JobTemplate template, Map<Path, String> references) {
    if (!template.hasSpark() || references.isEmpty()) {
      return template;
    }
    SparkJob spark = template.getSpark();
    return template.toBuilder()
        .setExecutable(replaced(template.getExecutable(), references))
        .setSpark(spark.toBuilder()
            .clearJars().addAllJars(replaced(spark.getJarsList(), references))
            .clearFiles().addAllFiles(replaced(spark.getFilesList(), references))
            .clearArchives().addAllArchives(replaced(spark.getArchivesList(), references)))
        .build();
  }

  private static List<String> entries(JobTemplate t) {
    List<String> all = new ArrayList<>();
    all.add(t.getExecutable());
    all.addAll(t.getSpark().getJarsList());
    all.addAll(t.getSpark().getFilesList());
    all.addAll(t.getSpark().getArchivesList());
    return all;
  }

  private static String replaced(String entry, Map<Path, String> references) {
    Path p = localPath(entry);
    if (p == null) {
      return entry;
    }
    String reference = references.get(p);
    if (reference == null) {
      throw new IllegalStateException("No upload answered for " + p);
    }
    return reference;
  }

  private static List<String> replaced(List<String> entries, Map<Path, String> references) {
    List<String> out = new ArrayList<>(entries.size());
    for (String e : entries) {
      out.add(replaced(e, references));
    }
    return out;
  }
}
