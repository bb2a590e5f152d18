package dev.supervision.backoff.internal.util;

/**
 * INTERNAL API: the {@link IllegalArgumentException} of the library's argument checks, carrying
 * the name of the parameter that was rejected, so that a caller (the configuration reader) knows
 * which setting is at fault without reading the message. Users see and catch it as an {@code
 * IllegalArgumentException}.
 */
public final class ParameterException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** The rejected parameter's name. */
  private final String parameter;

  /**
   * Creates the exception.
   *
   * @param parameter the rejected parameter's name, as in the method's signature
   * @param message the message, which names the parameter, the rule and the value
   */
  public ParameterException(String parameter, String message) {
    super(message);
    this.parameter = parameter;
  }

  /**
   * The name of the parameter that was rejected, for example {@code minBackoff}.
   *
   * @return the parameter's name
   */
  public String parameter() {
    return parameter;
  }
}
