package dev.supervision.backoff.internal;

import static dev.supervision.backoff.internal.Recovery.self;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.internal.Recovery.Due;
import dev.supervision.backoff.internal.util.Causes;
import java.util.function.Predicate;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ExtensibleBehavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.internal.BehaviorImpl;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * INTERNAL API: the supervisor behind {@code BackoffSupervisor.wrap}, one per actor: it intercepts
 * the child's messages and signals; the episode is {@link BackoffEpisode}'s.
 *
 * <p>Not a {@code BehaviorInterceptor} as Pekko's supervisor is: it interprets the child itself,
 * so that a running actor's message costs a null test, a type test, a {@code try} and an identity
 * test. An idle actor's supervisor holds four fields: {@link #wrap} here, three in the superclass.
 */
public class BackoffBehavior<T> extends BackoffEpisode<T> {

  /** Shared by every actor of one {@code wrap}; replaced by an adopted re-wrap (equal policy). */
  private Wrap<T> wrap;

  private BackoffBehavior(Wrap<T> wrap) {
    this.wrap = wrap;
  }

  public static <T> Behavior<T> supervise(Behavior<T> initial, BackoffPolicy policy) {
    if (initial instanceof Wrap && ((Wrap<T>) initial).policy.equals(policy)) {
      return initial; // wrap(wrap(b, p), p) is wrap(b, p)
    }
    return new Wrap<>(initial, policy);
  }

  /** Its own class, so that a supervisor recognizes a re-wrap among its child's results. */
  static final class Wrap<T> extends BehaviorImpl.DeferredBehavior<T> {
    final Behavior<T> initial;
    final BackoffPolicy policy;
    final Predicate<Object> finalStop; // null unless it restarts on stop

    Wrap(Behavior<T> initial, BackoffPolicy policy) {
      this.initial = initial;
      this.policy = policy;
      this.finalStop = policy.isRestartOnStop() ? policy.getFinalStopMessage().orElse(null) : null;
    }

    @Override
    public Behavior<T> apply(TypedActorContext<T> ctx) {
      return (finalStop == null ? new BackoffBehavior<>(this) : new WithFinalStop<>(this))
          .start(ctx);
    }

    @Override
    public String toString() {
      return "BackoffSupervisor.wrap(" + initial + ", " + policy + ")";
    }
  }

  /** The supervisor of a policy with a final stop message: others do not pay its test. */
  static final class WithFinalStop<T> extends BackoffBehavior<T> {
    WithFinalStop(Wrap<T> wrap) {
      super(wrap);
    }

    @Override
    public Behavior<T> receive(TypedActorContext<T> ctx, T msg) {
      if (isRunning()) {
        watchFinalStop(ctx, msg);
      }
      return super.receive(ctx, msg);
    }
  }

  /** What {@link BackoffSupervisor#resetBackoff} sends: a signal, unhandled without a supervisor. */
  private enum ResetRequest implements Signal, DeadLetterSuppression {
    INSTANCE
  }

  public static void requestReset(ActorContext<?> ctx) {
    self(ctx).tell(ResetRequest.INSTANCE);
  }

  @Override
  public BackoffPolicy policy() {
    return wrap.policy;
  }

  @Override
  Behavior<T> initial() {
    return wrap.initial;
  }

  @Override
  Predicate<Object> finalStop() {
    return wrap.finalStop;
  }

  @Override
  Behavior<T> replayMessage(TypedActorContext<T> ctx, Behavior<T> child, T msg) throws Exception {
    return interpretMessage(ctx, child, msg);
  }

  /** The child returned {@code wrap(b, policy)}: b becomes the child and what is restarted. */
  private Behavior<T> adopt(Behavior<T> result) {
    Behavior<T> next = result;
    while (next instanceof Wrap<T> rewrap && ReWrap.samePolicy(rewrap.policy, wrap.policy)) {
      wrap = rewrap;
      next = rewrap.initial;
    }
    return next;
  }

  private Behavior<T> start(TypedActorContext<T> ctx) {
    // a conflicting budget fails the start, not a restart
    RestartBudget budget = policy().getBudget().orElse(null);
    if (budget != null) {
      GateRegistry.get(ctx.asJava().getSystem()).handle(budget);
    }
    Behavior<T> started;
    try {
      started = Behavior.start(wrap.initial, ctx);
    } catch (Throwable t) {
      onFailure(ctx, t, null, false);
      return this;
    }
    // same or unhandled as the initial behavior is a programming error; the actor fails to start
    Behavior.validateAsInitial(started);
    if (!Behavior.isAlive(started)) {
      if (isHandledFailure(started)) {
        onFailure(ctx, failureOf(started), null, false);
        return this;
      }
      Behavior<T> next = stoppedOrFailed(ctx, started, null, null);
      return next == Behaviors.<T>same() ? this : next; // stopped at once: so does the actor
    }
    if (ReWrap.replacedBy(this, started)) {
      return started; // setup(ctx -> wrap(b, p)) wrapped in p: the inner layer is the actor's
    }
    current = started;
    return this;
  }

  @Override
  public Behavior<T> receive(TypedActorContext<T> ctx, T msg) {
    Behavior<T> child = current;
    if (child == null) { // off the hot path: there is no child during a backoff
      return inBackoff()
          ? messageDuringBackoff(ctx, msg)
          : Behaviors.unhandled(); // gave up without a child, see receiveSignal
    }
    Behavior<T> result;
    try {
      result = interpretMessage(ctx, child, msg);
    } catch (Throwable t) {
      return onFailure(ctx, t, child, false);
    }
    return next(ctx, result, child, msg);
  }

  @Override
  public Behavior<T> receiveSignal(TypedActorContext<T> ctx, Signal signal) {
    if (signal instanceof Due due && (due.recovery() == recovery || due.isStale())) {
      if (due.isStale()) {
        return Behaviors.same(); // cancelled after it was enqueued
      }
      return switch (due.kind()) {
        case RESTART -> recovery.delayPassed() ? restartOrAskBudget(ctx) : Behaviors.same();
        case RESET -> onResetDue(ctx);
        case PERMIT -> recovery.permitRequested ? onPermit(ctx) : Behaviors.same();
      };
    }
    if (signal == ResetRequest.INSTANCE) {
      if (inBackoff()) {
        return Behaviors.same(); // asked by the incarnation that failed since
      }
      if (!isRetired()) {
        resetNow(ctx);
      } // and on to the child: nested supervisors reset too; a plain behavior leaves it unhandled
    }
    if (inBackoff()) {
      return signalDuringBackoff(ctx, signal);
    }
    Behavior<T> child = current;
    if (signal == PostStop.instance()) {
      cancelOwnTimers();
      return child == null ? Behaviors.same() : Behavior.interpretSignal(child, ctx, signal);
    }
    if (child == null) {
      // gave up without a child (its restart failed) and an outer supervisor caught that: it
      // sends PreRestart, and there is no behavior to give it to
      return Behaviors.same();
    }
    Behavior<T> result;
    try {
      result = Behavior.interpretSignal(child, ctx, signal);
    } catch (Throwable t) {
      if (signal == PreRestart.instance()) {
        throw Causes.sneaky(t); // an outer supervisor is restarting us; not ours to handle
      }
      return onFailure(ctx, t, child, false);
    }
    if (signal == PreRestart.instance() && !Behavior.isAlive(result)) {
      return result; // an outer supervisor is restarting us and ignores this; not ours to handle
    }
    return next(ctx, result, child, signal);
  }

  /** A stopped result is returned as is: the actor's PostStop reaches current, which stopped. */
  private Behavior<T> next(
      TypedActorContext<T> ctx, Behavior<T> result, Behavior<T> child, Object trigger) {
    if (result == Behaviors.<T>same() || Behavior.isUnhandled(result)) {
      return result;
    }
    if (!Behavior.isAlive(result)) { // off the hot path: stopped or failed
      return isHandledFailure(result)
          ? onFailure(ctx, failureOf(result), child, false)
          : stoppedOrFailed(ctx, result, child, trigger);
    }
    if (ReWrap.replacedBy(this, result)) {
      return result; // a newer layer with an equal policy took over; this one leaves the stack
    }
    current = result; // already started by Behavior.interpretMessage
    return Behaviors.same();
  }

  /** An ExtensibleBehavior gets receive directly; small enough for the JIT to inline. */
  @SuppressWarnings("unchecked")
  private Behavior<T> interpretMessage(TypedActorContext<T> ctx, Behavior<T> child, T msg)
      throws Exception {
    if (!(child instanceof ExtensibleBehavior)) {
      return Behavior.interpretMessage(child, ctx, msg);
    }
    Behavior<T> result = ((ExtensibleBehavior<T>) child).receive(ctx, msg);
    if (result == Behaviors.<T>same()) {
      return result;
    }
    return Behavior.start(adopt(result), ctx);
  }

  @Override
  public String toString() {
    return "BackoffSupervisor(" + policy() + ")";
  }
}
