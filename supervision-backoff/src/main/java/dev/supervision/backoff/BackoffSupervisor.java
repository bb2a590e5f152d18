package dev.supervision.backoff;

import dev.supervision.backoff.internal.BackoffBehavior;
import org.apache.pekko.actor.typed.Behavior;

/**
 * The entry point: wraps a behavior so that it is restarted with exponential, jittered backoff when
 * it fails. A drop-in replacement for {@code
 * Behaviors.supervise(child).onFailure(SupervisorStrategy.restartWithBackoff(min, max, factor))}:
 *
 * <pre>{@code
 * Behavior<Command> worker =
 *     BackoffSupervisor.wrap(
 *         Worker.create(),
 *         BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(20)));
 * }</pre>
 *
 * <p>What it does, in order, when the child fails while handling a message or a signal, or while
 * starting ({@code Behaviors.setup}). The child fails when it throws, and also when it returns a
 * failed behavior (as Pekko's stop supervisor does, and a persistent behavior whose journal or
 * store fails): that is handled like the throw of the failure it carries. Pekko's own supervisor
 * lets a failed behavior through, and the actor stops.
 *
 * <ol>
 *   <li>Fatal errors ({@code VirtualMachineError}, {@code LinkageError}, ...) are not handled.
 *   <li>The actor's timers ({@code Behaviors.withTimers}) are cancelled.
 *   <li>A failure matching {@link BackoffPolicy#getStopOn()}, or one that comes after {@link
 *       BackoffPolicy#getMaxRestarts()} restarts without a reset, stops the actor: the failed
 *       behavior gets {@code PostStop} and a watching parent sees {@code ChildFailed}.
 *   <li>Otherwise the failed behavior gets {@code PreRestart}, its children are stopped, and the
 *       restart is scheduled after the policy's next delay (at least the {@link RetryAfter} hint, if
 *       the failure carries one) through the actor system's scheduler.
 *   <li>Messages and signals that arrive meanwhile are stashed up to {@link
 *       BackoffPolicy#getStashCapacity()}; the rest are published on the event stream as {@code
 *       org.apache.pekko.actor.Dropped}.
 *   <li>When the delay has passed and every child has terminated (so their names can be reused),
 *       the original behavior is started again and the stash is delivered in order.
 *   <li>After {@link BackoffPolicy#getResetAfter()} without a failure, the count returns to 0.
 * </ol>
 *
 * <p>Stopping the actor during its backoff stops it cleanly: no restart follows and the stash is
 * published as {@code Dropped}. A failure thrown while the child's own {@code StashBuffer} unstashes
 * is handled as the failure of the behavior that threw, as by Pekko's supervisor. Supervisors can
 * be nested; an inner one that gives up is restarted by the outer one.
 *
 * <p>While nothing fails, a message costs the supervisor a null test, a type test, a {@code try}
 * and an identity test on the child's result (the child's behavior is held and interpreted directly, with
 * no {@code BehaviorInterceptor} layer in between).
 */
public final class BackoffSupervisor {

  private BackoffSupervisor() {}

  /**
   * Wraps {@code child} so that it is restarted according to {@code policy}. The returned behavior
   * can be spawned any number of times; each actor gets its own supervisor state.
   *
   * @param child the behavior to supervise; started again at every restart, so it should be a
   *     {@code Behaviors.setup} (not an {@code AbstractBehavior} instance)
   * @param policy the restart policy
   * @param <T> the message type
   * @return the supervised behavior
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if {@code child} is an {@code AbstractBehavior} instance, which
   *     would be reused, with its state, across restarts
   */
  public static <T> Behavior<T> wrap(Behavior<T> child, BackoffPolicy policy) {
    Require.nonNull(child, "child");
    Require.nonNull(policy, "policy");
    if (child instanceof org.apache.pekko.actor.typed.javadsl.AbstractBehavior
        || child instanceof org.apache.pekko.actor.typed.scaladsl.AbstractBehavior) {
      throw new IllegalArgumentException(
          "child must not be an AbstractBehavior instance (it would be reused across restarts) but was "
              + child.getClass().getName()
              + "; wrap it in Behaviors.setup(ctx -> new ...)");
    }
    return BackoffBehavior.supervise(child, policy);
  }
}
