package org.apache.gravitino.exceptions;

/** Declaration of Gravitino's base unchecked exception; the message is a format string. */
public class GravitinoRuntimeException extends RuntimeException {
  public GravitinoRuntimeException(String message, Object... args) {
    super(String.format(message, args));
  }

  public GravitinoRuntimeException(Throwable cause, String message, Object... args) {
    super(String.format(message, args), cause);
  }
}
