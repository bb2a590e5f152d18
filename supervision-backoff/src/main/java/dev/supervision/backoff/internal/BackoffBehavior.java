package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.internal.Recovery.Due;
import dev.supervision.backoff.internal.Recovery.StashedSignal;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Predicate;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ExtensibleBehavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.internal.BehaviorImpl;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.internal.UnstashException;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the behavior behind {@code BackoffSupervisor.wrap}, one instance per actor (made by
 * the deferred behavior that {@link #supervise} returns). All state is confined to the actor, so
 * nothing here is synchronized.
 *
 * <p>An {@link ExtensibleBehavior}, not a {@code BehaviorInterceptor} as Pekko's own supervisor is:
 * it keeps the child's current behavior in a field ({@link #current}) and interprets it itself, so
 * a running actor's message costs a null test, a type test, a {@code try} and an identity test on
 * the child's result.
 *
 * <p>Memory. An idle actor's supervisor holds four fields: what all actors of one {@code wrap}
 * share ({@link Wrap}: the behavior to restart, the policy), the child, the state of a recovery
 * ({@link Recovery}, null until the first failure and again after the reset) and its flags.
 *
 * <p>Life cycle. While running, messages and signals go to the child. A failure (thrown in {@code
 * setup}, a message or a signal, or a failed behavior that carries a persistence failure, {@link
 * Causes#isPersistenceFailure}) cancels the actor's timers, signals {@code PreRestart}, stops the
 * children (unless the policy keeps them) and schedules a restart tick with {@code
 * ActorContext.scheduleOnce}, so {@code ManualTime} times the restart. During the backoff messages
 * and signals are stashed up to the capacity, the rest published as {@link Dropped}. When the tick
 * has fired and the children have terminated (and the budget, if any, granted a permit), the
 * initial behavior is started again, the stash replayed in order and a reset tick scheduled. A stop
 * of the child stops the actor, unless the policy restarts on stop ({@link #stoppedOrFailed}); any
 * other failed behavior (an inner {@code stop()}) is let through.
 *
 * <p>Other homes: re-wrapping (one layer per distinct policy) is {@link ReWrap}; every log line and
 * event is {@link SupervisorReports}; the ticks and permits are {@link Recovery.Due} signals. A
 * policy with a final stop message gets the subclass {@link WithFinalStop}, so that other actors
 * do not pay its test on every message.
 *
 * @param <T> the child's message type
 */
public class BackoffBehavior<T> extends ExtensibleBehavior<T> implements ReWrap.Layer {

  /** This layer was replaced by a newer one with an equal policy: it handles no failure. */
  private static final int RETIRED = 1;

  /** The child has received a final stop message: its next stop stops the actor. */
  private static final int FINAL_STOP_SEEN = 2;

  /** Shared by every actor of one {@code wrap}; replaced by an adopted re-wrap (equal policy). */
  private Wrap<T> wrap;

  /**
   * The child's started behavior: never {@code same}, {@code unhandled}, deferred or stopped. Always
   * null during a backoff (the failed behavior is released), so {@code receive} tests only this
   * field while the actor runs; also null after giving up without a child.
   */
  private Behavior<T> current;

  /** From the first failure until the reset; else null (see {@link Recovery}). */
  private Recovery recovery;

  /** {@link #RETIRED}, {@link #FINAL_STOP_SEEN}. */
  private int flags;

  private BackoffBehavior(Wrap<T> wrap) {
    this.wrap = wrap;
  }

  /**
   * The supervised behavior: each actor spawned from it gets its own supervisor.
   *
   * @param initial the behavior started at every (re)start
   * @param policy the policy
   * @param <T> the message type
   * @return the behavior to spawn
   */
  public static <T> Behavior<T> supervise(Behavior<T> initial, BackoffPolicy policy) {
    if (initial instanceof Wrap && ((Wrap<T>) initial).policy.equals(policy)) {
      return initial; // wrap(wrap(b, p), p) is wrap(b, p)
    }
    return new Wrap<>(initial, policy);
  }

  /**
   * What {@link #supervise} returns, and what every actor spawned from it shares: a deferred
   * behavior (as {@code Behaviors.setup} is) that creates the actor's supervisor when it starts.
   * Immutable. Its own class, so that a supervisor can recognize a re-wrap with an equal policy
   * among its child's results and adopt it instead of nesting it.
   */
  static final class Wrap<T> extends BehaviorImpl.DeferredBehavior<T> {
    final Behavior<T> initial;
    final BackoffPolicy policy;

    /** The policy's final stop predicate if it restarts on stop, else null. */
    final Predicate<Object> finalStop;

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

  /**
   * The supervisor of a policy with a final stop message, which it looks at for every message until
   * one matches. Its own class, so that an actor of any other policy does not pay the test.
   */
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

  /**
   * Asks the supervisors of {@code ctx}'s actor to reset their restart count (see {@code
   * BackoffSupervisor.resetBackoff}).
   *
   * @param ctx the supervised behavior's context
   */
  public static void requestReset(ActorContext<?> ctx) {
    self(ctx).tell(ResetRequest.INSTANCE);
  }

  // ---------------------------------------------------------------- the layer, for ReWrap

  /**
   * The layer's policy.
   *
   * @return the policy
   */
  @Override
  public BackoffPolicy policy() {
    return wrap.policy;
  }

  /**
   * The child's running behavior.
   *
   * @return the child, or null during a backoff
   */
  @Override
  public Behavior<?> child() {
    return current;
  }

  /**
   * Retires this layer in favour of {@code heir} (see {@link ReWrap}): a heir that has just started
   * healthy takes the whole recovery over, pending reset included; one that failed while it started
   * keeps its own backoff, and this layer's timers are cancelled. Idempotent.
   *
   * @param heir the layer that takes over
   */
  @Override
  public void handOverTo(ReWrap.Layer heir) {
    if (isRetired()) {
      return; // a stash replay may find the heir again in later results
    }
    BackoffBehavior<?> next = (BackoffBehavior<?>) heir;
    next.flags |= flags & FINAL_STOP_SEEN;
    if (next.recovery == null && next.isRunning()) {
      next.recovery = recovery;
    } else {
      cancelOwnTimers();
    }
    flags |= RETIRED;
    recovery = null;
    current = null;
  }

  /**
   * A re-wrap with an equal policy returned by the child ({@code wrap(b, policy)} returned as is):
   * this layer adopts {@code b} as its child and as the behavior it restarts, instead of nesting a
   * second supervisor. Any other behavior is returned as is (one type test).
   */
  private Behavior<T> adopt(Behavior<T> result) {
    Behavior<T> next = result;
    while (next instanceof Wrap<T> rewrap && ReWrap.samePolicy(rewrap.policy, wrap.policy)) {
      wrap = rewrap;
      next = rewrap.initial;
    }
    return next;
  }

  // ---------------------------------------------------------------- start and dispatch

  private Behavior<T> start(TypedActorContext<T> ctx) {
    // registers the budget now, so that a conflicting one fails the start with a clear message
    // instead of failing later, in the middle of a restart
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
      return next == Behaviors.<T>same()
          ? this
          : next; // the child stopped at once; so does the actor
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
        case RESTART -> onRestartDue(ctx);
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

  /**
   * What the actor continues with after the child handled a message or signal: this behavior, with
   * the child's new behavior in {@link #current}, or the child's {@code unhandled} or {@code
   * stopped} as is (a stopped actor gives {@code PostStop} to this behavior, which passes it to
   * {@code current}, the behavior that stopped), or, if the child returned a failed behavior, what
   * {@link #onFailure} makes of the failure it carries.
   */
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

  /**
   * {@link Behavior#interpretMessage}, adopting a re-wrap with an equal policy: the per-message path
   * of {@link #receive} and of the stash replay. For an {@link ExtensibleBehavior} (by far the most
   * common kind) it calls {@code receive} itself, without {@code interpretMessage}'s dispatch on the
   * other kinds; small enough for the JIT to inline into {@code receive}.
   */
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

  private boolean isRetired() {
    return (flags & RETIRED) != 0;
  }

  private boolean inBackoff() {
    return recovery != null && recovery.inBackoff;
  }

  /** Whether the child runs (the actor is not in a backoff and has not given up). */
  final boolean isRunning() {
    return current != null;
  }

  /** The restarts since the last reset. */
  private int restarts() {
    return recovery == null ? 0 : recovery.restarts;
  }

  /**
   * Whether {@code result} is a failed behavior ({@code BehaviorImpl.failed(cause)}) whose cause
   * this supervisor handles: a non-fatal persistence failure ({@link Causes#isPersistenceFailure}),
   * which Pekko's persistent behaviors return from their internal stop supervisor when their
   * journal or store fails. Any other failed behavior comes from a stop the child's author wrote
   * (an inner {@code SupervisorStrategy.stop()}, or a Pekko backoff inside that gave up) and is
   * let through: the actor stops, as under Pekko's supervisors. Called only on results that are not
   * alive.
   */
  private static boolean isHandledFailure(Behavior<?> result) {
    if (!(result instanceof BehaviorImpl.FailedBehavior)) {
      return false;
    }
    Throwable cause = failureOf(result);
    return NonFatal.apply(cause) && Causes.isPersistenceFailure(cause);
  }

  private static Throwable failureOf(Behavior<?> failed) {
    return ((BehaviorImpl.FailedBehavior) failed).cause();
  }

  // ---------------------------------------------------------------- stops and final stops

  /**
   * What the actor does with a child's result that is not alive and not a handled failure: a
   * failed behavior is let through (the actor stops with its cause, reported as {@code
   * INNER_STOP}); a stop is restarted under {@code withRestartOnStop} unless it is final, else
   * let through. {@code live} is the behavior that stopped (null if the child never started),
   * {@code trigger} the message or signal it stopped on (null at a start).
   */
  private Behavior<T> stoppedOrFailed(
      TypedActorContext<T> ctx, Behavior<T> result, Behavior<T> live, Object trigger) {
    if (result instanceof BehaviorImpl.FailedBehavior) {
      innerStop(ctx, result);
      return result;
    }
    if (restartsOnStop(trigger)) {
      return onStopped(ctx, result, live);
    }
    return result;
  }

  /**
   * Whether a stop of the child on {@code trigger} (a message, a signal, or null) is restarted: the
   * policy restarts on stop, the stop is not final (a {@code PoisonPill} from outside, passivation
   * or hand-off, stops for good, as does a stop after a final stop message) and this layer is not
   * retired.
   */
  private boolean restartsOnStop(Object trigger) {
    return policy().isRestartOnStop()
        && !(trigger instanceof PoisonPill)
        && (flags & (FINAL_STOP_SEEN | RETIRED)) == 0;
  }

  /** Notes a final stop message, if the policy has one and none was seen yet. */
  final void watchFinalStop(TypedActorContext<T> ctx, Object msg) {
    if ((flags & FINAL_STOP_SEEN) == 0 && matchesFinalStop(ctx, msg)) {
      flags |= FINAL_STOP_SEEN;
    }
  }

  /** The policy's final stop predicate on {@code msg}; one that throws is no match (one WARN line). */
  private boolean matchesFinalStop(TypedActorContext<T> ctx, Object msg) {
    Predicate<Object> predicate = wrap.finalStop;
    if (predicate == null) {
      return false;
    }
    try {
      return predicate.test(msg);
    } catch (Throwable t) {
      callbackThrew(ctx, t, "final stop message predicate", predicate, msg, "taken as no match");
      return false;
    }
  }

  /** A failed behavior that the actor lets through: reported, and the actor stops with its cause. */
  private void innerStop(TypedActorContext<T> ctx, Behavior<T> failed) {
    Throwable cause = failureOf(failed);
    if (NonFatal.apply(cause)) { // a fatal error is not ours to report
      SupervisorReports.innerStop(policy(), ctx.asJava(), restarts(), cause);
    }
  }

  /**
   * The child stopped itself under {@code withRestartOnStop}: the behavior that stopped gets {@code
   * PostStop} and the stopped behavior's callback runs (as when an actor stops), then the stop is
   * handled like a failure.
   */
  private Behavior<T> onStopped(TypedActorContext<T> ctx, Behavior<T> stopped, Behavior<T> live) {
    current = null;
    try {
      if (live != null) {
        Behavior.interpretSignal(live, ctx, PostStop.instance());
      }
      if (stopped instanceof BehaviorImpl.StoppedBehavior) {
        ((BehaviorImpl.StoppedBehavior<T>) stopped).onPostStop(ctx);
      }
    } catch (Throwable t) {
      signalHandlerThrew(ctx, t, "PostStop after it stopped itself");
    }
    return onFailure(ctx, new ChildStopped(), null, true);
  }

  // ---------------------------------------------------------------- during the backoff

  /** Handles a message that arrived during a backoff: a final stop, the handler, or the stash. */
  private Behavior<T> messageDuringBackoff(TypedActorContext<T> ctx, T msg) {
    if (matchesFinalStop(ctx, msg)) {
      log(
          ctx,
          Level.DEBUG,
          null,
          "Supervised actor [{}] got a final stop message during its backoff; it stops");
      return Behaviors.stopped(); // PostStop follows: the stash is published as Dropped
    }
    BackoffHandler handler = policy().getHandlerWhileBackingOff().orElse(null);
    if (handler == null || !answered(ctx, handler, msg)) {
      stashOrDrop(ctx, msg);
    }
    return Behaviors.same();
  }

  /** Whether the handler answered {@code msg}; one that throws did not (one WARN line). */
  private boolean answered(TypedActorContext<T> ctx, BackoffHandler handler, T msg) {
    // once the delay has passed, the restart waits for children or a permit, whose arrival the
    // supervisor cannot know: the handler is told minBackoff
    Recovery r = recovery;
    Duration untilRestart =
        r.restartDue || r.countdown == null ? policy().getMinBackoff() : r.countdown.untilRestart();
    try {
      return handler.handle(msg, untilRestart);
    } catch (Throwable t) {
      callbackThrew(ctx, t, "handler while backing off", handler, msg, "the message is stashed");
      return false;
    }
  }

  private Behavior<T> signalDuringBackoff(TypedActorContext<T> ctx, Signal signal) {
    Recovery r = recovery;
    if (signal instanceof Terminated terminated
        && r.stoppingChildren != null
        && r.stoppingChildren.remove(terminated.getRef())) {
      return r.restartDue && r.stoppingChildren.isEmpty()
          ? restartOrAskBudget(ctx)
          : Behaviors.same();
    }
    if (signal == PostStop.instance()) {
      stoppedDuringBackoff(ctx);
      return Behaviors.same();
    }
    if (signal instanceof Due) {
      return Behaviors.same(); // a nested supervisor's, from the incarnation that failed
    }
    if (signal instanceof PoisonPill) {
      // Cluster Sharding (passivation, hand-off) and Cluster Singleton without a stop message stop
      // an actor with PoisonPill: their interceptor, outside this supervisor, stops it if the
      // signal is unhandled. Stashed, the signal would be swallowed by the restarted behavior and
      // the actor would never stop, while sharding buffers its messages until it does. Unhandled,
      // it stops the actor now.
      return Behaviors.unhandled();
    }
    stashOrDrop(ctx, new StashedSignal(signal));
    return Behaviors.same();
  }

  private void stoppedDuringBackoff(TypedActorContext<T> ctx) {
    recovery.inBackoff = false;
    cancelOwnTimers();
    cancelPermitRequest(ctx);
    int dropped = dropStash(ctx, "actor stopped during its backoff");
    SupervisorReports.stoppedDuringBackoff(policy(), ctx.asJava(), restarts(), dropped);
  }

  // ---------------------------------------------------------------- failure

  /**
   * Handles a failure: gives up (rethrows) or schedules a restart and returns {@code same}.
   *
   * @param thrown what the child threw, or the cause of the failed behavior it returned; an {@code
   *     UnstashException} (thrown by a {@code StashBuffer} while unstashing) stands for its cause,
   *     thrown by the behavior it carries
   * @param failed the behavior that threw (gets PreRestart, or PostStop from the actor if we give
   *     up), or null if the child never started
   * @param stop for a child that stopped itself under {@code withRestartOnStop} ({@code thrown} is
   *     a {@link ChildStopped}): no stop rule, hint or adaptive budget applies, and reaching {@code
   *     maxRestarts} stops the actor cleanly instead of failing it
   */
  @SuppressWarnings("unchecked")
  private Behavior<T> onFailure(
      TypedActorContext<T> ctx, Throwable thrown, Behavior<T> failed, boolean stop) {
    Throwable failure = thrown;
    Behavior<T> failedBehavior = failed;
    if (thrown instanceof UnstashException<?> unstash) {
      failure = unstash.cause();
      failedBehavior = (Behavior<T>) unstash.behavior();
    }
    Causes.rethrowIfFatal(failure);
    ActorContext<T> jctx = ctx.asJava();
    BackoffPolicy policy = policy();
    cancelAllTimers(ctx);
    if (recovery == null) {
      recovery = new Recovery();
    }
    Recovery r = recovery;
    current = failedBehavior; // gets PostStop through us if we give up
    if (!stop && policy.isPermanent(failure)) {
      throw giveUp(ctx, failure, BackoffEvent.Reason.PERMANENT_FAILURE, false);
    }
    if (!stop && policy.getBudget().orElse(null) instanceof RestartBudget.Adaptive) {
      // an adaptive budget learns from failures (permanent ones and stops excepted)
      gate(jctx).tell(new GateProtocol.Failed(self(jctx)));
    }
    if (policy.getMaxRestarts().isPresent() && r.restarts >= policy.getMaxRestarts().getAsInt()) {
      if (stop) {
        giveUp(ctx, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED, true); // does not throw
        return Behaviors.stopped(); // stopped, not failed: a watching parent sees Terminated
      }
      throw giveUp(ctx, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED, false);
    }
    current = null;
    if (failedBehavior != null) {
      try {
        Behavior.interpretSignal(failedBehavior, ctx, PreRestart.instance());
      } catch (Throwable t) {
        signalHandlerThrew(ctx, t, "PreRestart");
      }
    }
    if (policy.isStopChildren()) {
      stopChildren(jctx, r); // the restart waits for their Terminated
    }
    r.restarts++;
    long delayNanos = stop ? nextDelay(ctx, r) : withRetryAfter(ctx, nextDelay(ctx, r), failure);
    Duration delay = Duration.ofNanos(delayNanos);
    r.inBackoff = true;
    r.restartDue = false;
    if (r.stash == null) {
      r.stash = new ArrayDeque<>(Math.min(16, Math.max(1, stashCapacity(ctx))));
    }
    r.timer = jctx.scheduleOnce(delay, self(jctx), r.due(Recovery.Kind.RESTART));
    if (policy.getHandlerWhileBackingOff().isPresent()) {
      r.countdown = Countdown.start(jctx, delayNanos); // the time left, for the handler
    }
    SupervisorReports.restartScheduled(policy, jctx, r.restarts, failure, stop, delay);
    return Behaviors.same();
  }

  /**
   * Stops the actor: returns the failure to throw (the actor then gives PostStop to us); for a
   * child that stopped itself ({@code stop}) it only reports and returns null, and the caller
   * returns {@code stopped}. A {@link ChildStopped} a child throws is a failure like any other.
   * Called by {@link #onFailure} only, after it has cancelled every timer.
   */
  private RuntimeException giveUp(
      TypedActorContext<T> ctx, Throwable failure, BackoffEvent.Reason reason, boolean stop) {
    recovery.inBackoff = false;
    dropStash(ctx, "actor stopped by its backoff supervisor: " + reason);
    SupervisorReports.gaveUp(policy(), ctx.asJava(), restarts(), failure, reason, stop);
    if (stop) {
      return null; // the child stopped itself: the caller stops the actor cleanly
    }
    return Causes.sneaky(failure);
  }

  /** The next delay of the schedule; a broken user jitter gets one WARN line (see DelaySchedule). */
  private long nextDelay(TypedActorContext<T> ctx, Recovery r) {
    BackoffPolicy policy = policy();
    if (r.schedule == null) {
      r.schedule =
          new DelaySchedule(
              policy.getMinBackoff(),
              policy.getMaxBackoff(),
              policy.getMultiplier(),
              policy.getJitter());
    }
    long delayNanos = r.schedule.nextDelayNanos(r.random(policy, ctx.asJava()));
    DelaySchedule.BrokenJitter broken = r.schedule.takeBrokenJitter();
    if (broken != null) {
      log(
          ctx,
          Level.WARN,
          broken.threw(),
          "Supervised actor [{}]: jitter [{}] {} for attempt {}; full jitter used for this attempt",
          broken.jitter(),
          broken.problem(),
          broken.attempt());
    }
    return delayNanos;
  }

  /**
   * The policy's delay, lengthened to the first usable {@link RetryAfter} hint of the cause chain.
   * A hint that throws is skipped (one WARN line names it), as are null, zero and negative hints:
   * a broken hint never costs the restart.
   */
  private long withRetryAfter(TypedActorContext<T> ctx, long delayNanos, Throwable failure) {
    Duration max = policy().getMaxRetryAfter();
    for (Throwable t : Causes.chain(failure)) {
      if (!(t instanceof RetryAfter)) {
        continue;
      }
      Duration hint;
      try {
        hint = ((RetryAfter) t).retryAfter();
      } catch (Throwable broken) {
        Causes.rethrowIfFatal(broken);
        log(
            ctx,
            Level.WARN,
            broken,
            "Supervised actor [{}]: the RetryAfter hint of {} threw {}; ignored, the policy's delay applies",
            t.getClass().getName(),
            Causes.describe(broken));
        continue;
      }
      if (hint != null && !hint.isNegative() && !hint.isZero()) {
        long hintNanos = hint.compareTo(max) > 0 ? max.toNanos() : hint.toNanos();
        return Math.max(delayNanos, hintNanos);
      }
    }
    return delayNanos;
  }

  private void stopChildren(ActorContext<T> jctx, Recovery r) {
    List<ActorRef<Void>> children = jctx.getChildren();
    if (children.isEmpty()) {
      return;
    }
    if (r.stoppingChildren == null) {
      r.stoppingChildren = new HashSet<>();
    }
    for (ActorRef<Void> child : children) {
      // unwatch first: the failed incarnation may have used watchWith for this child
      jctx.unwatch(child);
      jctx.watch(child);
      jctx.stop(child);
      r.stoppingChildren.add(child);
    }
  }

  // ---------------------------------------------------------------- restart and reset

  private Behavior<T> onRestartDue(TypedActorContext<T> ctx) {
    Recovery r = recovery;
    r.restartDue = true;
    r.timer = null;
    r.stopCountdown(); // the delay has passed: nothing left to count
    if (r.stoppingChildren != null && !r.stoppingChildren.isEmpty()) {
      return Behaviors.same(); // waits for the children's Terminated
    }
    return restartOrAskBudget(ctx);
  }

  /** The delay has passed and the children are gone: restart, or ask the budget first. */
  private Behavior<T> restartOrAskBudget(TypedActorContext<T> ctx) {
    RestartBudget budget = policy().getBudget().orElse(null);
    if (budget == null) {
      return restart(ctx);
    }
    ActorContext<T> jctx = ctx.asJava();
    recovery.permitRequested = true;
    gate(jctx).tell(new GateProtocol.Acquire(self(jctx), recovery.due(Recovery.Kind.PERMIT)));
    SupervisorReports.waitingForPermit(policy(), jctx, restarts(), budget.getName());
    return Behaviors.same();
  }

  private Behavior<T> onPermit(TypedActorContext<T> ctx) {
    ActorContext<T> jctx = ctx.asJava();
    RestartBudget budget = policy().getBudget().orElseThrow();
    recovery.permitRequested = false;
    SupervisorReports.permitGranted(policy(), jctx, restarts(), budget.getName());
    Behavior<T> next = restart(ctx);
    if (!inBackoff() && Behavior.isAlive(next) && budget instanceof RestartBudget.Adaptive) {
      // the restarted behavior is set up and has handled its stash: its probation starts now
      gate(jctx).tell(new GateProtocol.Started(self(jctx)));
    }
    return next;
  }

  /**
   * The budget's gate: the one this recovery looked up, unless the registry forgot it since (the
   * gate stopped). Without a recovery (this layer handed it over) it is looked up each time.
   */
  private ActorRef<GateProtocol.Command> gate(ActorContext<T> jctx) {
    Recovery r = recovery;
    GateRegistry.Handle handle = r == null ? null : r.gate;
    if (handle == null || handle.isForgotten()) {
      handle = GateRegistry.get(jctx.getSystem()).handle(policy().getBudget().orElseThrow());
      if (r != null) {
        r.gate = handle;
      }
    }
    return handle.gate();
  }

  /** Leaves the budget's queue, if the actor waits in it. */
  private void cancelPermitRequest(TypedActorContext<T> ctx) {
    if (recovery.permitRequested) {
      recovery.permitRequested = false;
      ActorContext<T> jctx = ctx.asJava();
      gate(jctx).tell(new GateProtocol.Cancel(self(jctx)));
    }
  }

  private Behavior<T> restart(TypedActorContext<T> ctx) {
    ActorContext<T> jctx = ctx.asJava();
    cancelAllTimers(ctx);
    Behavior<T> started;
    try {
      started = Behavior.validateAsInitial(Behavior.start(wrap.initial, ctx));
    } catch (Throwable t) {
      return onFailure(ctx, t, null, false);
    }
    if (!Behavior.isAlive(started)) {
      if (isHandledFailure(started)) {
        return onFailure(
            ctx, failureOf(started), null, false); // the stash is kept for the next restart
      }
      if (!(started instanceof BehaviorImpl.FailedBehavior) && restartsOnStop(null)) {
        return onStopped(ctx, started, null); // stopped in its setup; the stash is kept
      }
    }
    Recovery r = recovery;
    r.inBackoff = false;
    r.restartDue = false;
    r.stoppingChildren = null; // empty by now; released like the stash
    r.timer =
        policy().isManualReset()
            ? null // only the child resets the count
            : jctx.scheduleOnce(policy().getResetAfter(), self(jctx), r.due(Recovery.Kind.RESET));
    SupervisorReports.restarted(policy(), jctx, r.restarts);
    return replayStash(ctx, started);
  }

  /**
   * Delivers the stash, in order, to the restarted child. Returns {@code same} with the child's
   * behavior in {@link #current}, or the child's stopped behavior (the rest of the stash goes to
   * dead letters), or {@code same} in a new backoff if the child failed again (the rest of the
   * stash is kept for the next restart). The stash is taken out of the recovery while it is
   * replayed, so that a layer that takes the recovery over never sees it.
   */
  @SuppressWarnings("unchecked")
  private Behavior<T> replayStash(TypedActorContext<T> ctx, Behavior<T> started) {
    if (!Behavior.isAlive(started)) {
      if (started instanceof BehaviorImpl.FailedBehavior) {
        innerStop(ctx, started);
      }
      dropStash(ctx, "actor stopped while its stash was replayed");
      return started; // the restarted child stopped at once; so does the actor
    }
    ArrayDeque<Object> pending = recovery.stash;
    recovery.stash = null; // released: an actor that stays healthy keeps no stash
    Behavior<T> live = started;
    ReWrap.replacedBy(this, started);
    while (pending != null && !pending.isEmpty()) {
      Object item = pending.poll();
      Signal signal = item instanceof StashedSignal s ? s.signal() : null;
      if (signal == null) {
        watchFinalStop(ctx, item);
      }
      Behavior<T> result;
      try {
        result =
            signal != null
                ? Behavior.interpretSignal(live, ctx, signal)
                : interpretMessage(ctx, live, (T) item);
      } catch (Throwable t) {
        if (isRetired()) {
          throw Causes.sneaky(t); // the layer that took over gave up; not ours to handle
        }
        recovery.stash = pending; // the rest is kept for the next restart
        return onFailure(ctx, t, live, false);
      }
      if (signal == null && Behavior.isUnhandled(result)) {
        publish(
            ctx,
            new UnhandledMessage(
                item,
                org.apache.pekko.actor.ActorRef.noSender(),
                Adapter.toClassic(ctx.asJava().getSelf())));
      }
      if (!Behavior.isAlive(result)) {
        boolean failed = result instanceof BehaviorImpl.FailedBehavior;
        if (!isRetired()
            && (failed
                ? isHandledFailure(result)
                : restartsOnStop(signal != null ? signal : item))) {
          recovery.stash = pending; // the rest is kept for the next restart
          return failed
              ? onFailure(ctx, failureOf(result), live, false)
              : onStopped(ctx, result, live);
        }
        if (failed && !isRetired()) {
          innerStop(ctx, result);
        }
        current = live; // gets PostStop through us
        drop(ctx, pending, "actor stopped while its stash was replayed");
        return result;
      }
      if (result != Behaviors.<T>same() && !Behavior.isUnhandled(result)) {
        ReWrap.replacedBy(this, result);
      }
      live = Behavior.canonicalize(result, live, ctx);
    }
    if (isRetired()) {
      return live; // a newer layer with an equal policy took over
    }
    current = live;
    return Behaviors.same();
  }

  private Behavior<T> onResetDue(TypedActorContext<T> ctx) {
    recovery.timer = null;
    reset(ctx, false);
    return Behaviors.same();
  }

  /** The child asked for a reset ({@code BackoffSupervisor.resetBackoff}); nothing if count is 0. */
  private void resetNow(TypedActorContext<T> ctx) {
    if (restarts() > 0) {
      reset(ctx, true); // cancels the pending reset, if any
    }
  }

  /**
   * The count returns to 0 and the recovery is released (see {@link Recovery#afterReset}): an actor
   * that has recovered holds no more than one that never failed.
   */
  private void reset(TypedActorContext<T> ctx, boolean byChild) {
    int before = restarts();
    recovery = recovery.afterReset(policy());
    SupervisorReports.reset(policy(), ctx.asJava(), before, byChild);
  }

  // ---------------------------------------------------------------- helpers

  private void stashOrDrop(TypedActorContext<T> ctx, Object item) {
    int capacity = stashCapacity(ctx);
    if (recovery.stash.size() < capacity) {
      recovery.stash.add(item);
    } else {
      publishDropped(
          ctx, item, "stash of the backoff supervisor is full (capacity " + capacity + ")");
    }
  }

  /**
   * The policy's stash capacity, else the actor system's {@code
   * pekko.actor.typed.restart-stash-capacity} (as Pekko's own supervisor does; 1000 by default).
   */
  private int stashCapacity(TypedActorContext<T> ctx) {
    OptionalInt set = policy().getStashCapacitySetting();
    return set.isPresent()
        ? set.getAsInt()
        : ctx.asJava().getSystem().settings().RestartStashCapacity();
  }

  /** Publishes the stash as {@link Dropped} and releases it; returns how many were dropped. */
  private int dropStash(TypedActorContext<T> ctx, String reason) {
    ArrayDeque<Object> pending = recovery.stash;
    recovery.stash = null;
    return drop(ctx, pending, reason);
  }

  private static int drop(TypedActorContext<?> ctx, ArrayDeque<Object> items, String reason) {
    if (items == null) {
      return 0;
    }
    for (Object item : items) {
      publishDropped(ctx, item, reason);
    }
    return items.size();
  }

  private static void publishDropped(TypedActorContext<?> ctx, Object item, String reason) {
    publish(
        ctx,
        new Dropped(
            item instanceof StashedSignal s ? s.signal() : item,
            reason,
            org.apache.pekko.actor.ActorRef.noSender(),
            Adapter.toClassic(ctx.asJava().getSelf())));
  }

  private static void publish(TypedActorContext<?> ctx, Object event) {
    ctx.asJava().getSystem().eventStream().tell(new EventStream.Publish<>(event));
  }

  /** Cancels the user's timers (as Pekko's supervisor does) and our own. */
  private void cancelAllTimers(TypedActorContext<T> ctx) {
    // Pekko's own RestartSupervisor does the same; there is no public API to cancel another
    // behavior's TimerScheduler timers, and this one is a no-op for actors that never used timers.
    ctx.asScala().cancelAllTimers();
    cancelOwnTimers();
  }

  private void cancelOwnTimers() {
    if (recovery != null) {
      recovery.cancelTimers();
    }
  }

  /**
   * The child's handler of a signal threw {@code t} in {@code where}: a fatal error is rethrown,
   * anything else gets one ERROR line, and the restart goes on.
   */
  private void signalHandlerThrew(TypedActorContext<T> ctx, Throwable t, String where) {
    Causes.rethrowIfFatal(t);
    log(ctx, Level.ERROR, t, "Supervised actor [{}] failed in {}; the restart goes on", where);
  }

  /**
   * A user's callback ({@code what}) threw {@code t} on {@code msg}: a fatal error is rethrown,
   * anything else gets one WARN line that says what happens instead ({@code instead}).
   */
  private void callbackThrew(
      TypedActorContext<T> ctx,
      Throwable t,
      String what,
      Object callback,
      Object msg,
      String instead) {
    Causes.rethrowIfFatal(t);
    log(
        ctx,
        Level.WARN,
        t,
        "Supervised actor [{}]: {} [{}] threw on a message of {}; {}",
        what,
        callback,
        msg == null ? "null" : msg.getClass().getName(),
        instead);
  }

  /** One line of this actor's supervisor: the format's first argument is the actor's path. */
  private void log(
      TypedActorContext<T> ctx, Level level, Throwable cause, String format, Object... args) {
    SupervisorReports.log(policy(), ctx.asJava(), level, cause, format, args);
  }

  /** The actor's own ref, for the ticks and permits (signals, delivered as such by the actor). */
  @SuppressWarnings("unchecked")
  private static ActorRef<Object> self(ActorContext<?> jctx) {
    return (ActorRef<Object>) (ActorRef<?>) jctx.getSelf();
  }

  @Override
  public String toString() {
    return "BackoffSupervisor(" + policy() + ")";
  }
}
