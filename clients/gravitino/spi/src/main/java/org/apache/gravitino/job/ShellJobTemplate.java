package org.apache.gravitino.job;

import com.google.common.collect.ImmutableList;
import java.util.List;

/** Declaration of Gravitino's shell job template. */
public class ShellJobTemplate extends JobTemplate {
  private final List<String> scripts;

  protected ShellJobTemplate(Builder builder) {
    super(builder);
    this.scripts = builder.scripts;
  }

  public List<String> scripts() {
    return scripts;
  }

  @Override
  public JobType jobType() {
    return JobType.SHELL;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static class Builder extends JobTemplate.BaseBuilder<Builder, ShellJobTemplate> {
    private List<String> scripts;

    private Builder() {}

    public Builder withScripts(List<String> scripts) {
      this.scripts = scripts;
      return this;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    public ShellJobTemplate build() {
      validate();
      return new ShellJobTemplate(this);
    }

    @Override
    protected void validate() {
      super.validate();
      this.scripts = scripts == null ? ImmutableList.of() : ImmutableList.copyOf(scripts);
    }
  }
}
