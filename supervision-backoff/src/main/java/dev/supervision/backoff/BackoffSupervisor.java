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
 * starting ({@code Behaviors.setup}). The child fails when it throws, and also when a persistent
 * behavior (an {@code EventSourcedBehavior} or {@code DurableStateBehavior}) whose journal or store
 * fails returns a failed behavior: that is handled like the throw of the failure it carries, where
 * Pekko's own supervisor lets it through and the actor stops. Any other failed behavior, such as
 * the one an inner {@code Behaviors.supervise(b).onFailure(X.class, SupervisorStrategy.stop())}
 * returns, stops the actor, as under Pekko (reported as {@link BackoffEvent.Reason#INNER_STOP}).
 * A child that stops itself stops the actor too, unless the policy {@link
 * BackoffPolicy#withRestartOnStop(boolean) restarts on stop}.
 *
 * <ol>
 *   <li>Fatal errors ({@code VirtualMachineError}, {@code LinkageError}, ...) are not handled.
 *   <li>The actor's timers ({@code Behaviors.withTimers}) are cancelled.
 *   <li>A failure matching {@link BackoffPolicy#getStopOn()}, or one that comes after {@link
 *       BackoffPolicy#getMaxRestarts()} restarts without a reset, stops the actor: the failed
 *       behavior gets {@code PostStop} and a watching parent sees {@code ChildFailed}.
 *   <li>Otherwise the failed behavior gets {@code PreRestart}, its children are stopped (unless
 *       {@link BackoffPolicy#isStopChildren()} is {@code false}), and the restart is scheduled
 *       after the policy's next delay (at least the {@link RetryAfter} hint, if the failure carries
 *       one) through the actor system's scheduler.
 *   <li>Messages and signals that arrive meanwhile are stashed up to the policy's stash capacity,
 *       or, if it sets none, the actor system's {@code pekko.actor.typed.restart-stash-capacity}
 *       (1000 by default); the rest are published on the event stream as {@code
 *       org.apache.pekko.actor.Dropped}.
 *   <li>When the delay has passed and every stopped child has terminated (so their names can be
 *       reused), the original behavior is started again and the stash is delivered in order. Kept
 *       children are not waited for.
 *   <li>After {@link BackoffPolicy#getResetAfter()} without a failure, the count returns to 0.
 * </ol>
 *
 * <p>Stopping the actor during its backoff stops it cleanly: no restart follows and the stash is
 * published as {@code Dropped}. A failure thrown while the child's own {@code StashBuffer} unstashes
 * is handled as the failure of the behavior that threw, as by Pekko's supervisor. Supervisors with
 * different policies can be nested; an inner one that gives up is restarted by the outer one.
 *
 * <p>From classic {@code BackoffSupervisor}: {@link BackoffPolicy#withRestartOnStop(boolean)} and
 * {@link BackoffPolicy#withFinalStopMessage}, {@link BackoffPolicy#withHandlerWhileBackingOff}
 * (answer messages during a backoff), {@link BackoffPolicy#withManualReset()} with {@link
 * #resetBackoff}.
 *
 * <p>Re-wrapping: an actor keeps one supervisor per distinct policy ({@link BackoffPolicy#equals}),
 * however often its behavior wraps its own next state, as in {@code counter(n) =
 * wrap(Behaviors.receiveMessage(m -> counter(n + 1)), policy)}; {@code wrap(wrap(b, p), p)} is
 * {@code wrap(b, p)}. After a re-wrap, a restart starts the behavior of the latest re-wrap, and the
 * restart count, the delay schedule and the pending reset carry on.
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
   * Resets the restart count of the supervisor around the calling actor, as if it had just started:
   * the next failure is treated as the first, and a {@link BackoffEvent.BackoffReset} is reported
   * (nothing happens if the count is already 0). Call it from the supervised behavior, with its own
   * context, once it has proven itself healthy, for example after its first successful query; with
   * {@link BackoffPolicy#withManualReset()} it is the only thing that resets the count.
   *
   * <p>The reset is a signal the actor sends to itself, so it takes effect once the message being
   * handled is done, before any message that arrives later; if the incarnation that asked fails
   * before, the request is ignored. Every supervisor layer of the actor resets (nested wraps with
   * different policies included). Calling it for an actor that has no supervisor around its
   * behavior does nothing: the signal reaches the behavior, which leaves it unhandled, like any
   * unknown signal.
   *
   * @param ctx the context of the supervised behavior
   * @throws NullPointerException if {@code ctx} is {@code null}
   */
  public static void resetBackoff(ActorContext<?> ctx) {
    Check.nonNull(ctx, "ctx");
    BackoffBehavior.requestReset(ctx);
  }
}
