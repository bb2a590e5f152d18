package dev.supervision.backoff;

import dev.supervision.backoff.internal.BackoffBehavior;
import dev.supervision.backoff.internal.util.Check;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

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
 * starting. The child fails when it throws, and also when a persistent behavior whose journal or
 * store fails returns a failed behavior (which Pekko's own supervisor lets through). Any other
 * failed behavior stops the actor, as under Pekko ({@link BackoffEvent.Reason#INNER_STOP}), and so
 * does a child that stops itself, unless the policy {@link BackoffPolicy#withRestartOnStop(boolean)
 * restarts on stop}.
 *
 * <ol>
 *   <li>Fatal errors ({@code VirtualMachineError}, {@code LinkageError}, ...) are not handled.
 *   <li>The actor's timers are cancelled.
 *   <li>A {@linkplain BackoffPolicy#isPermanent(Throwable) permanent} failure, or one after {@link
 *       BackoffPolicy#getMaxRestarts()} restarts, stops the actor ({@code PostStop}; a watching
 *       parent sees {@code ChildFailed}).
 *   <li>Otherwise the failed behavior gets {@code PreRestart}, its children are stopped (unless
 *       {@link BackoffPolicy#isStopChildren()} is {@code false}), and the restart is scheduled
 *       after the policy's next delay (at least a {@link RetryAfter} hint).
 *   <li>Messages and signals that arrive meanwhile are stashed up to {@linkplain
 *       BackoffPolicy#withStashCapacity(int) the stash capacity}; the rest are {@code Dropped}.
 *   <li>When the delay has passed and every stopped child has terminated (so their names can be
 *       reused), the behavior is started again and the stash is delivered in order.
 *   <li>After {@link BackoffPolicy#getResetAfter()} without a failure, the count returns to 0.
 * </ol>
 *
 * <p>Stopping the actor during its backoff stops it cleanly, its stash {@code Dropped}. Supervisors
 * with different policies can be nested; an inner one that gives up is restarted by the outer one.
 *
 * <p>Re-wrapping: an actor keeps one supervisor per distinct policy ({@link BackoffPolicy#equals}),
 * however often its behavior wraps its own next state; {@code wrap(wrap(b, p), p)} is {@code
 * wrap(b, p)}. A restart then starts the latest re-wrap, and the count, schedule and pending reset
 * carry on.
 *
 * <p>While nothing fails, a message costs a null test, a type test, a {@code try} and an identity
 * test (the child is interpreted directly, with no {@code BehaviorInterceptor} in between).
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
   * @throws IllegalArgumentException if {@code child} is an {@code AbstractBehavior} instance,
   *     which would be reused, with its state, across restarts
   */
  public static <T> Behavior<T> wrap(Behavior<T> child, BackoffPolicy policy) {
    Check.nonNull(child, "child");
    Check.nonNull(policy, "policy");
    if (child instanceof org.apache.pekko.actor.typed.javadsl.AbstractBehavior
        || child instanceof org.apache.pekko.actor.typed.scaladsl.AbstractBehavior) {
      throw new IllegalArgumentException(
          "child must not be an AbstractBehavior instance (it would be reused across restarts) but was "
              + child.getClass().getName()
              + "; wrap it in Behaviors.setup(ctx -> new ...)");
    }
    return BackoffBehavior.supervise(child, policy);
  }

  /**
   * Resets the restart count of every supervisor around the calling actor, so that the next failure
   * is treated as the first, and reports a {@link BackoffEvent.BackoffReset} (unless the count is
   * 0). Call it from the supervised behavior once it has proven itself healthy (see {@link
   * BackoffPolicy#withManualReset()}). It is a signal to itself: it takes effect once the current
   * message is done, and is ignored if the incarnation that asked fails before.
   *
   * @param ctx the context of the supervised behavior
   * @throws NullPointerException if {@code ctx} is {@code null}
   */
  public static void resetBackoff(ActorContext<?> ctx) {
    Check.nonNull(ctx, "ctx");
    BackoffBehavior.requestReset(ctx);
  }
}
