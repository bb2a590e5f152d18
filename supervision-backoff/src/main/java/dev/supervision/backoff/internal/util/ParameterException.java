package dev.supervision.backoff.internal.util;

/**
 * INTERNAL API: an {@link IllegalArgumentException} that carries the rejected parameter's name, so
 * that the configuration reader knows which key to blame without reading the message.
 */
public final class ParameterException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;
  private final String parameter;

  public ParameterException(String parameter, String message) {
    super(message);
    this.parameter = parameter;
  }

  public String parameter() {
    return parameter;
  }
}
