package dev.supervision.backoff;

import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What happened to a supervised actor, as reported to {@link BackoffListener}s (and, if the policy
 * {@linkplain BackoffPolicy#withEventStreamPublishing(boolean) publishes}, on the event stream).
 * Every event names the {@link #actor()} it is about; the permitted records are the whole
 * vocabulary.
 */
public sealed interface BackoffEvent {

  /** {@return the supervised actor this event is about} */
  ActorRef<?> actor();

  /**
   * A failure was caught, or the child stopped itself under {@link
   * BackoffPolicy#withRestartOnStop(boolean)}, and a restart is scheduled.
   *
   * @param actor the supervised actor
   * @param attempt the restart attempt, 1 for the first since the start or the last reset
   * @param delay how long the actor waits before it restarts (includes any {@link RetryAfter} hint)
   * @param cause the failure; a {@link ChildStopped} if the child stopped itself
   * @param afterStop whether this restart follows a stop of the child (it returned {@code
   *     Behaviors.stopped()}) rather than a failure: what the supervisor saw, not a test of {@code
   *     cause} (a child that throws a {@link ChildStopped} fails)
   */
  record RestartScheduled(
      ActorRef<?> actor, int attempt, Duration delay, Throwable cause, boolean afterStop)
      implements BackoffEvent {}

  /**
   * The behavior was started again after a backoff and now handles the stashed messages.
   *
   * @param actor the supervised actor
   * @param attempt the restart attempt that succeeded
   */
  record Restarted(ActorRef<?> actor, int attempt) implements BackoffEvent {}

  /**
   * The restarted behavior ran {@link BackoffPolicy#getResetAfter()} without failing, or called
   * {@link BackoffSupervisor#resetBackoff}.
   *
   * @param actor the supervised actor
   * @param attempt the restart count before the reset (the attempt of the last restart)
   */
  record BackoffReset(ActorRef<?> actor, int attempt) implements BackoffEvent {}

  /**
   * The supervisor stopped the actor because of a failure (or a stop of the child under {@link
   * BackoffPolicy#withRestartOnStop(boolean)}); no restart follows.
   *
   * @param actor the supervised actor
   * @param attempt the restart count since the start or the last reset (0 if none)
   * @param cause the failure; a {@link ChildStopped} if the child stopped itself
   * @param reason why the failure was not restarted
   * @param afterStop whether the actor stops after a stop of the child rather than a failure, as
   *     {@link RestartScheduled#afterStop()}
   */
  record GaveUp(ActorRef<?> actor, int attempt, Throwable cause, Reason reason, boolean afterStop)
      implements BackoffEvent {}

  /**
   * The actor was stopped (by its parent or by {@code ActorContext.stop}) while it waited for its
   * restart. The messages it had stashed are published as {@code org.apache.pekko.actor.Dropped}.
   *
   * @param actor the supervised actor
   * @param attempt the restart attempt that was pending
   * @param droppedMessages how many stashed messages and signals were dropped
   */
  record StoppedDuringBackoff(ActorRef<?> actor, int attempt, int droppedMessages)
      implements BackoffEvent {}

  /**
   * The backoff delay has passed and the actor asked its restart budget for a permit.
   *
   * @param actor the supervised actor
   * @param attempt the restart attempt that waits
   * @param budget the budget's name
   */
  record WaitingForPermit(ActorRef<?> actor, int attempt, String budget) implements BackoffEvent {}

  /**
   * The restart budget granted the permit the actor asked for.
   *
   * @param actor the supervised actor
   * @param attempt the restart attempt that may now happen
   * @param budget the budget's name
   */
  record PermitGranted(ActorRef<?> actor, int attempt, String budget) implements BackoffEvent {}

  /** Why a supervisor gave up on an actor. */
  enum Reason {
    /** The failure came after {@link BackoffPolicy#getMaxRestarts()} restarts without a reset. */
    MAX_RESTARTS_REACHED,
    /** The failure matched {@link BackoffPolicy#getStopOn()}: it is permanent. */
    PERMANENT_FAILURE,
    /**
     * The child failed through a supervisor of its own that stops (such as {@code
     * Behaviors.supervise(b).onFailure(X.class, SupervisorStrategy.stop())}): it returned a failed
     * behavior that is not a persistence failure, and the actor stops, as under Pekko.
     */
    INNER_STOP
  }
}
