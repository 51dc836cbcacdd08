package org.apache.gravitino.exceptions;

/** Declaration of Gravitino's exception for a job the executor doesn't know. */
public class NoSuchJobException extends NotFoundException {
  public NoSuchJobException(String message, Object... args) {
    super(message, args);
  }

  public NoSuchJobException(Throwable cause, String message, Object... args) {
    super(cause, message, args);
  }
}
