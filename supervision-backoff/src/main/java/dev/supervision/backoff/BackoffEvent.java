package dev.supervision.backoff;

import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What happened to a supervised actor, as reported to {@link BackoffListener}s. Every event names
 * the {@link #actor()} it is about. The permitted records are the whole vocabulary:
 *
 * <ul>
 *   <li>{@link RestartScheduled}: a failure was caught (or, with {@link
 *       BackoffPolicy#withRestartOnStop(boolean)}, the child stopped itself); the actor restarts
 *       after {@code delay}.
 *   <li>{@link Restarted}: the new incarnation started (its {@code Behaviors.setup} succeeded).
 *   <li>{@link BackoffReset}: the actor ran {@link BackoffPolicy#getResetAfter()} without failing,
 *       or its behavior called {@link BackoffSupervisor#resetBackoff}; the next failure is treated
 *       as the first.
 *   <li>{@link GaveUp}: the actor was stopped because of a failure (restart limit or a permanent
 *       failure).
 *   <li>{@link StoppedDuringBackoff}: the actor was stopped from outside while waiting to restart.
 *   <li>{@link WaitingForPermit}: the backoff delay has passed; the actor asks its {@link
 *       RestartBudget} for a permit.
 *   <li>{@link PermitGranted}: the budget granted the permit; the restart follows at once.
 * </ul>
 */
public sealed interface BackoffEvent {

  /**
   * The supervised actor this event is about.
   *
   * @return the actor's reference
   */
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
   *     Behaviors.stopped()}) rather than a failure. This is what the supervisor saw, not a test of
   *     {@code cause}: a child that throws a {@link ChildStopped} itself fails, and its event says
   *     {@code false}. A restarted stream's completion or cancellation counts as a failure here.
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
   * @param attempt the restart count since the start or the last reset (the attempt of the last
   *     restart; 0 if the actor had not been restarted)
   * @param cause the failure that stopped the actor; a {@link ChildStopped} if the child stopped
   *     itself
   * @param reason why the failure was not restarted
   * @param afterStop whether the actor stops after a stop of the child (it returned {@code
   *     Behaviors.stopped()} under {@link BackoffPolicy#withRestartOnStop(boolean)} once {@code
   *     maxRestarts} was reached) rather than after a failure; as for {@link
   *     RestartScheduled#afterStop()}, what the supervisor saw, not a test of {@code cause}
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
     * The child failed through a supervisor of its own that stops, such as {@code
     * Behaviors.supervise(b).onFailure(IllegalArgumentException.class, SupervisorStrategy.stop())}
     * (or a Pekko {@code restartWithBackoff} inside it that reached its limit): it returned a
     * failed behavior that is not a persistence failure. The actor stops, as it would under
     * Pekko's own supervisors.
     */
    INNER_STOP
  }
}
