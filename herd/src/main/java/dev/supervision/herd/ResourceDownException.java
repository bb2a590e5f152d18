package dev.supervision.herd;

/**
 * Thrown by the simulated resource while it is down. It carries no stack trace, so that Pekko's
 * immediate restart, which retries as fast as it can, measures the supervisor rather than {@code
 * fillInStackTrace}.
 */
public final class ResourceDownException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** A new exception without a stack trace. */
  public ResourceDownException() {
    super("the simulated resource is down", null, false, false);
  }
}
