package org.apache.gravitino.exceptions;

/** Declaration of Gravitino's base "not found" exception. */
public class NotFoundException extends GravitinoRuntimeException {
  public NotFoundException(String message, Object... args) {
    super(message, args);
  }

  public NotFoundException(Throwable cause, String message, Object... args) {
    super(cause, message, args);
  }
}
