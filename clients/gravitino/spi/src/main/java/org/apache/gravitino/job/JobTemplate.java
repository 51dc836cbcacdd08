package org.apache.gravitino.job;

import com.google.common.base.Preconditions;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.lang3.StringUtils;

/** Declaration of Gravitino's job template: the fields every job type shares. */
public abstract class JobTemplate {

  public enum JobType {
    SPARK,
    SHELL,
  }

  protected final String name;
  protected final String comment;
  protected final String executable;
  protected final List<String> arguments;
  protected final Map<String, String> environments;
  protected final Map<String, String> customFields;

  protected JobTemplate(BaseBuilder<?, ?> builder) {
    this.name = builder.name;
    this.comment = builder.comment;
    this.executable = builder.executable;
    this.arguments = builder.arguments;
    this.environments = builder.environments;
    this.customFields = builder.customFields;
  }

  public abstract JobType jobType();

  public String name() {
    return name;
  }

  public String comment() {
    return comment;
  }

  public String executable() {
    return executable;
  }

  public List<String> arguments() {
    return arguments;
  }

  public Map<String, String> environments() {
    return environments;
  }

  public Map<String, String> customFields() {
    return customFields;
  }

  public abstract static class BaseBuilder<B extends BaseBuilder<B, P>, P extends JobTemplate> {
    protected String name;
    protected String comment;
    protected String executable;
    protected List<String> arguments;
    protected Map<String, String> environments;
    protected Map<String, String> customFields;

    protected BaseBuilder() {}

    public B withName(String name) {
      this.name = name;
      return self();
    }

    public B withComment(String comment) {
      this.comment = comment;
      return self();
    }

    public B withExecutable(String executable) {
      this.executable = executable;
      return self();
    }

    public B withArguments(List<String> arguments) {
      this.arguments = arguments;
      return self();
    }

    public B withEnvironments(Map<String, String> environments) {
      this.environments = environments;
      return self();
    }

    public B withCustomFields(Map<String, String> customFields) {
      this.customFields = customFields;
      return self();
    }

    protected abstract B self();

    public abstract P build();

    protected void validate() {
      Preconditions.checkArgument(StringUtils.isNotBlank(name), "Job name must not be null or empty");
      Preconditions.checkArgument(
          StringUtils.isNotBlank(executable), "Executable must not be null or empty");
      this.arguments = arguments == null ? ImmutableList.of() : ImmutableList.copyOf(arguments);
      this.environments =
          environments == null ? ImmutableMap.of() : ImmutableMap.copyOf(environments);
      this.customFields =
          customFields == null ? ImmutableMap.of() : ImmutableMap.copyOf(customFields);
    }
  }
}
