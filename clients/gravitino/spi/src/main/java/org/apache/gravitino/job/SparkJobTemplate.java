package org.apache.gravitino.job;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;

/** Declaration of Gravitino's Spark job template. */
public class SparkJobTemplate extends JobTemplate {
  private final String className;
  private final List<String> jars;
  private final List<String> files;
  private final List<String> archives;
  private final Map<String, String> configs;

  protected SparkJobTemplate(Builder builder) {
    super(builder);
    this.className = builder.className;
    this.jars = builder.jars;
    this.files = builder.files;
    this.archives = builder.archives;
    this.configs = builder.configs;
  }

  public String className() {
    return className;
  }

  public List<String> jars() {
    return jars;
  }

  public List<String> files() {
    return files;
  }

  public List<String> archives() {
    return archives;
  }

  public Map<String, String> configs() {
    return configs;
  }

  @Override
  public JobType jobType() {
    return JobType.SPARK;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static class Builder extends JobTemplate.BaseBuilder<Builder, SparkJobTemplate> {
    private String className;
    private List<String> jars;
    private List<String> files;
    private List<String> archives;
    private Map<String, String> configs;

    private Builder() {}

    public Builder withClassName(String className) {
      this.className = className;
      return this;
    }

    public Builder withJars(List<String> jars) {
      this.jars = jars;
      return this;
    }

    public Builder withFiles(List<String> files) {
      this.files = files;
      return this;
    }

    public Builder withArchives(List<String> archives) {
      this.archives = archives;
      return this;
    }

    public Builder withConfigs(Map<String, String> configs) {
      this.configs = configs;
      return this;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    public SparkJobTemplate build() {
      validate();
      return new SparkJobTemplate(this);
    }

    @Override
    protected void validate() {
      super.validate();
      this.jars = jars == null ? ImmutableList.of() : ImmutableList.copyOf(jars);
      this.files = files == null ? ImmutableList.of() : ImmutableList.copyOf(files);
      this.archives = archives == null ? ImmutableList.of() : ImmutableList.copyOf(archives);
      this.configs = configs == null ? ImmutableMap.of() : ImmutableMap.copyOf(configs);
    }
  }
}
