package dev.supervision.backoff;

/**
 * The {@code cause} of the events of a supervised child that stopped itself (it returned {@code
 * Behaviors.stopped()}) under a policy with {@link BackoffPolicy#withRestartOnStop(boolean)}: a
 * {@link BackoffEvent.RestartScheduled} whose {@link BackoffEvent.RestartScheduled#afterStop()} is
 * {@code true}, or a {@link BackoffEvent.GaveUp}. Never thrown by the library; it has no stack
 * trace. One a child throws is a failure like any other: tell a stop by {@code afterStop()}, not by
 * the cause's type.
 */
public final class ChildStopped extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** A new instance. */
  public ChildStopped() {
    super("the supervised child stopped itself", null, false, false);
  }
}
