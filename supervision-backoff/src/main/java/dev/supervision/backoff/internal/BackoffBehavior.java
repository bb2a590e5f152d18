package dev.supervision.backoff.internal;

import static dev.supervision.backoff.internal.Recovery.self;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.internal.Recovery.Due;
import dev.supervision.backoff.internal.Recovery.StashedSignal;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.ArrayDeque;
import java.util.function.Predicate;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ExtensibleBehavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.internal.BehaviorImpl;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.internal.UnstashException;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the behavior behind {@code BackoffSupervisor.wrap}, one instance per actor (made by
 * the deferred behavior that {@link #supervise} returns). Confined to the actor: nothing here is
 * synchronized.
 *
 * <p>An {@link ExtensibleBehavior}, not a {@code BehaviorInterceptor} as Pekko's own supervisor is:
 * it keeps the child's behavior in {@link #current} and interprets it itself, so that a running
 * actor's message costs a null test, a type test, a {@code try} and an identity test.
 *
 * <p>Memory: an idle actor's supervisor holds four fields, the {@link Wrap} shared by all actors of
 * one {@code wrap}, the child, the {@link Recovery} (null until the first failure and again after
 * the reset) and its flags.
 *
 * <p>Life cycle. A failure (thrown in {@code setup}, a message or a signal, or a failed behavior
 * that carries a persistence failure) cancels the actor's timers, signals {@code PreRestart},
 * stops the children (unless the policy keeps them) and schedules a restart tick with {@code
 * scheduleOnce}, so that {@code ManualTime} times it. During the backoff messages and signals are
 * stashed up to the capacity, the rest published as {@link Dropped}. Once the tick has fired, the
 * children have terminated and the budget (if any) granted a permit, the initial behavior starts
 * again, the stash is replayed in order and a reset tick scheduled. A stop of the child stops the
 * actor unless the policy restarts on stop; any other failed behavior (an inner {@code stop()}) is
 * let through. Re-wrapping is {@link ReWrap}'s, the episode's bookkeeping {@link Recovery}'s, every
 * log line and event {@link SupervisorReports}'.
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
   * The child's started behavior (never {@code same}, {@code unhandled}, deferred or stopped); null
   * during a backoff, so that {@code receive} tests only this field, and after giving up without a
   * child.
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
   * What {@link #supervise} returns, shared by every actor spawned from it: a deferred behavior that
   * creates the actor's supervisor. Its own class, so that a supervisor can recognize a re-wrap with
   * an equal policy among its child's results and adopt it instead of nesting it.
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

  @Override
  public BackoffPolicy policy() {
    return wrap.policy;
  }

  @Override
  public Behavior<?> child() {
    return current;
  }

  /**
   * A heir that has just started healthy takes the whole recovery over, pending reset included; one
   * that failed while it started keeps its own backoff, and this layer's timers are cancelled.
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
   * A re-wrap with an equal policy returned by the child, {@code wrap(b, policy)}: this layer adopts
   * {@code b} as its child and as the behavior it restarts instead of nesting a second supervisor.
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

  /**
   * What the actor continues with after the child handled a message or signal: {@code same} with the
   * child's new behavior in {@link #current}; the child's {@code unhandled} or {@code stopped} as is
   * (the actor's {@code PostStop} then reaches {@code current}, the behavior that stopped); or what
   * {@link #onFailure} makes of a failure.
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
   * {@link Behavior#interpretMessage}, adopting a re-wrap with an equal policy. An {@link
   * ExtensibleBehavior} (the common kind) gets {@code receive} directly, without {@code
   * interpretMessage}'s dispatch; small enough for the JIT to inline into {@link #receive}.
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
   * Whether {@code result} is a failed behavior whose cause this supervisor handles: a non-fatal
   * persistence failure, which Pekko's persistent behaviors return when their journal or store
   * fails. Any other failed behavior comes from a stop the child's author wrote (an inner {@code
   * SupervisorStrategy.stop()}, a Pekko backoff inside that gave up) and is let through, as under
   * Pekko's supervisors.
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
   * A result that is not alive and not a handled failure: a failed behavior is let through
   * (reported as {@code INNER_STOP}); a stop is restarted under {@code withRestartOnStop} unless it
   * is final. {@code live} is the behavior that stopped (null at a start), {@code trigger} the
   * message or signal it stopped on (null at a start).
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
   * Whether a stop on {@code trigger} is restarted: the policy restarts on stop, and the stop is not
   * final (a {@code PoisonPill}, as for passivation or hand-off, or one after a final stop message)
   * and this layer is not retired.
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
      SupervisorReports.callbackThrew(
          policy(),
          ctx.asJava(),
          t,
          "final stop message predicate",
          predicate,
          msg,
          "taken as no match");
      return false;
    }
  }

  /** Reports a failed behavior that the actor lets through (it stops with its cause). */
  private void innerStop(TypedActorContext<T> ctx, Behavior<T> failed) {
    Throwable cause = failureOf(failed);
    if (NonFatal.apply(cause)) { // a fatal error is not ours to report
      SupervisorReports.innerStop(policy(), ctx.asJava(), restarts(), cause);
    }
  }

  /**
   * The child stopped itself under {@code withRestartOnStop}: {@code PostStop} and the stopped
   * behavior's callback run (as when an actor stops), then the stop is handled like a failure.
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
      SupervisorReports.signalHandlerThrew(
          policy(), ctx.asJava(), t, "PostStop after it stopped itself");
    }
    return onFailure(ctx, new ChildStopped(), null, true);
  }

  // ---------------------------------------------------------------- during the backoff

  /** Handles a message that arrived during a backoff: a final stop, the handler, or the stash. */
  private Behavior<T> messageDuringBackoff(TypedActorContext<T> ctx, T msg) {
    if (matchesFinalStop(ctx, msg)) {
      SupervisorReports.log(
          policy(),
          ctx.asJava(),
          Level.DEBUG,
          null,
          "Supervised actor [{}] got a final stop message during its backoff; it stops");
      return Behaviors.stopped(); // PostStop follows: the stash is published as Dropped
    }
    BackoffHandler handler = policy().getHandlerWhileBackingOff().orElse(null);
    if (handler == null || !answered(ctx, handler, msg)) {
      recovery.stashOrDrop(ctx.asJava(), policy(), msg);
    }
    return Behaviors.same();
  }

  /** Whether the handler answered {@code msg}; one that throws did not (one WARN line). */
  private boolean answered(TypedActorContext<T> ctx, BackoffHandler handler, T msg) {
    try {
      return handler.handle(msg, recovery.untilRestart(policy()));
    } catch (Throwable t) {
      SupervisorReports.callbackThrew(
          policy(),
          ctx.asJava(),
          t,
          "handler while backing off",
          handler,
          msg,
          "the message is stashed");
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
      r.stoppedDuringBackoff(ctx.asJava(), policy());
      return Behaviors.same();
    }
    if (signal instanceof Due) {
      return Behaviors.same(); // a nested supervisor's, from the incarnation that failed
    }
    if (signal instanceof PoisonPill) {
      // Cluster Sharding (passivation, hand-off) and Singleton stop an actor with PoisonPill; their
      // interceptor, outside us, stops it if the signal is unhandled. Stashed, the restarted
      // behavior would swallow it and the actor would never stop, while sharding buffers for it.
      return Behaviors.unhandled();
    }
    r.stashOrDrop(ctx.asJava(), policy(), new StashedSignal(signal));
    return Behaviors.same();
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
    current = failedBehavior; // gets PostStop through us if we give up
    if (!stop && policy.isPermanent(failure)) {
      recovery.gaveUp(jctx, policy, failure, BackoffEvent.Reason.PERMANENT_FAILURE, false);
      throw Causes.sneaky(failure); // the actor gives PostStop to current
    }
    if (!stop && policy.getBudget().orElse(null) instanceof RestartBudget.Adaptive) {
      // an adaptive budget learns from failures (permanent ones and stops excepted)
      recovery.gate(jctx, policy).tell(new GateProtocol.Failed(self(jctx)));
    }
    if (policy.getMaxRestarts().isPresent()
        && recovery.restarts >= policy.getMaxRestarts().getAsInt()) {
      recovery.gaveUp(jctx, policy, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED, stop);
      if (stop) {
        return Behaviors.stopped(); // stopped, not failed: a watching parent sees Terminated
      }
      throw Causes.sneaky(failure);
    }
    current = null;
    if (failedBehavior != null) {
      try {
        Behavior.interpretSignal(failedBehavior, ctx, PreRestart.instance());
      } catch (Throwable t) {
        SupervisorReports.signalHandlerThrew(policy, jctx, t, "PreRestart");
      }
    }
    recovery.beginBackoff(jctx, policy, failure, stop);
    return Behaviors.same();
  }

  // ---------------------------------------------------------------- restart and reset

  /** The delay has passed and the children are gone: restart, or ask the budget first. */
  private Behavior<T> restartOrAskBudget(TypedActorContext<T> ctx) {
    RestartBudget budget = policy().getBudget().orElse(null);
    if (budget == null) {
      return restart(ctx);
    }
    recovery.askPermit(ctx.asJava(), policy(), budget);
    return Behaviors.same();
  }

  private Behavior<T> onPermit(TypedActorContext<T> ctx) {
    ActorContext<T> jctx = ctx.asJava();
    RestartBudget budget = policy().getBudget().orElseThrow();
    Recovery r = recovery; // kept: a re-wrap in the stash may take it over, or leave it behind
    r.permitGranted(jctx, policy(), budget);
    Behavior<T> next = restart(ctx);
    if (!inBackoff() && Behavior.isAlive(next) && budget instanceof RestartBudget.Adaptive) {
      // the restarted behavior is set up and has handled its stash: its probation starts now
      r.gate(jctx, policy()).tell(new GateProtocol.Started(self(jctx)));
    }
    return next;
  }

  private Behavior<T> restart(TypedActorContext<T> ctx) {
    cancelAllTimers(ctx);
    Behavior<T> started;
    try {
      started = Behavior.validateAsInitial(Behavior.start(wrap.initial, ctx));
    } catch (Throwable t) {
      return onFailure(ctx, t, null, false);
    }
    if (!Behavior.isAlive(started)) {
      if (isHandledFailure(started)) { // the stash is kept for the next restart
        return onFailure(ctx, failureOf(started), null, false);
      }
      if (!(started instanceof BehaviorImpl.FailedBehavior) && restartsOnStop(null)) {
        return onStopped(ctx, started, null); // stopped in its setup; the stash is kept
      }
    }
    recovery.restarted(ctx.asJava(), policy());
    return replayStash(ctx, started);
  }

  /**
   * Delivers the stash, in order, to the restarted child: {@code same} with the child in {@link
   * #current}; or the child's stopped behavior (the rest goes to dead letters); or {@code same} in a
   * new backoff that keeps the rest. The stash is taken out of the recovery while it is replayed, so
   * that a layer that takes the recovery over never sees it.
   */
  @SuppressWarnings("unchecked")
  private Behavior<T> replayStash(TypedActorContext<T> ctx, Behavior<T> started) {
    if (!Behavior.isAlive(started)) {
      if (started instanceof BehaviorImpl.FailedBehavior) {
        innerStop(ctx, started);
      }
      recovery.dropStash(ctx.asJava(), "actor stopped while its stash was replayed");
      return started; // the restarted child stopped at once; so does the actor
    }
    ArrayDeque<Object> pending = recovery.takeStash();
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
        Recovery.publishUnhandled(ctx.asJava(), item);
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
        Recovery.drop(ctx.asJava(), pending, "actor stopped while its stash was replayed");
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

  /** The count returns to 0 and the recovery is released (see {@link Recovery#afterReset}). */
  private void reset(TypedActorContext<T> ctx, boolean byChild) {
    int before = restarts();
    recovery = recovery.afterReset(policy());
    SupervisorReports.reset(policy(), ctx.asJava(), before, byChild);
  }

  // ---------------------------------------------------------------- helpers

  /** Cancels the user's timers (as Pekko's RestartSupervisor does, through the same call) and ours. */
  private void cancelAllTimers(TypedActorContext<T> ctx) {
    ctx.asScala().cancelAllTimers(); // a no-op for actors that never used timers
    cancelOwnTimers();
  }

  private void cancelOwnTimers() {
    if (recovery != null) {
      recovery.cancelTimers();
    }
  }

  @Override
  public String toString() {
    return "BackoffSupervisor(" + policy() + ")";
  }
}
