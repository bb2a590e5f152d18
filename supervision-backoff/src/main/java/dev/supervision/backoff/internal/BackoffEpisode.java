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
 * INTERNAL API: the restart episode of a supervisor, the superclass of {@link BackoffBehavior} (which
 * intercepts the messages and signals): what a failure or a stop of the child leads to, the
 * backoff, the restart with its stash replay, and the reset. It holds three of the supervisor's four
 * fields: the child, the {@link Recovery} and the flags. A superclass rather than a class the
 * supervisor calls, so that the two form no circle and an actor holds no more objects.
 *
 * <p>A failure (thrown in {@code setup}, a message or a signal, or a failed behavior that carries a
 * persistence failure) cancels the actor's timers, signals {@code PreRestart}, stops the children
 * (unless the policy keeps them) and schedules a restart tick with {@code scheduleOnce}, so that
 * {@code ManualTime} times it. During the backoff messages and signals are stashed up to the
 * capacity, the rest published as {@code Dropped}. Once the tick has fired, the children have
 * terminated and the budget (if any) granted a permit, the initial behavior starts again, the stash
 * is replayed in order and a reset tick scheduled. A stop of the child stops the actor unless the
 * policy restarts on stop; any other failed behavior (an inner {@code stop()}) is let through. The
 * episode's bookkeeping is {@link Recovery}'s, every log line and event {@link SupervisorReports}'.
 *
 * @param <T> the child's message type
 */
abstract class BackoffEpisode<T> extends ExtensibleBehavior<T> implements ReWrap.Layer {

  /** This layer was replaced by a newer one with an equal policy: it handles no failure. */
  static final int RETIRED = 1;

  /** The child has received a final stop message: its next stop stops the actor. */
  static final int FINAL_STOP_SEEN = 2;

  /**
   * The child's started behavior (never {@code same}, {@code unhandled}, deferred or stopped); null
   * during a backoff, so that {@code receive} tests only this field, and after giving up without a
   * child.
   */
  Behavior<T> current;

  /** From the first failure until the reset; else null (see {@link Recovery}). */
  Recovery recovery;

  /** {@link #RETIRED}, {@link #FINAL_STOP_SEEN}. */
  int flags;

  /** The behavior started at every restart: the latest adopted re-wrap's. */
  abstract Behavior<T> initial();

  /** The policy's final stop predicate if it restarts on stop, else null. */
  abstract Predicate<Object> finalStop();

  /** Gives a replayed message to the restarted child as {@code receive} gives a message. */
  abstract Behavior<T> replayMessage(TypedActorContext<T> ctx, Behavior<T> child, T msg)
      throws Exception;

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
    BackoffEpisode<?> next = (BackoffEpisode<?>) heir;
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

  boolean isRetired() {
    return (flags & RETIRED) != 0;
  }

  boolean inBackoff() {
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
  static boolean isHandledFailure(Behavior<?> result) {
    if (!(result instanceof BehaviorImpl.FailedBehavior)) {
      return false;
    }
    Throwable cause = failureOf(result);
    return NonFatal.apply(cause) && Causes.isPersistenceFailure(cause);
  }

  static Throwable failureOf(Behavior<?> failed) {
    return ((BehaviorImpl.FailedBehavior) failed).cause();
  }

  // ---------------------------------------------------------------- stops and final stops

  /**
   * A result that is not alive and not a handled failure: a failed behavior is let through
   * (reported as {@code INNER_STOP}); a stop is restarted under {@code withRestartOnStop} unless it
   * is final. {@code live} is the behavior that stopped (null at a start), {@code trigger} the
   * message or signal it stopped on (null at a start).
   */
  Behavior<T> stoppedOrFailed(
      TypedActorContext<T> ctx, Behavior<T> result, Behavior<T> live, Object trigger) {
    if (result instanceof BehaviorImpl.FailedBehavior) {
      innerStop(ctx, result);
      return result;
    }
    return restartsOnStop(trigger) ? onStopped(ctx, result, live) : result;
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
    Predicate<Object> predicate = finalStop();
    if (predicate == null) {
      return false;
    }
    try {
      return predicate.test(msg);
    } catch (Throwable t) {
      threw(ctx, t, "final stop message predicate", predicate, msg, "taken as no match");
      return false;
    }
  }

  /** A user's callback threw: one WARN line (see {@link SupervisorReports#callbackThrew}). */
  private void threw(
      TypedActorContext<T> ctx,
      Throwable t,
      String what,
      Object callback,
      Object msg,
      String instead) {
    SupervisorReports.callbackThrew(policy(), ctx.asJava(), t, what, callback, msg, instead);
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
  Behavior<T> messageDuringBackoff(TypedActorContext<T> ctx, T msg) {
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
      threw(ctx, t, "handler while backing off", handler, msg, "the message is stashed");
      return false;
    }
  }

  Behavior<T> signalDuringBackoff(TypedActorContext<T> ctx, Signal signal) {
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
  Behavior<T> onFailure(
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
  Behavior<T> restartOrAskBudget(TypedActorContext<T> ctx) {
    RestartBudget budget = policy().getBudget().orElse(null);
    if (budget == null) {
      return restart(ctx);
    }
    recovery.askPermit(ctx.asJava(), policy(), budget);
    return Behaviors.same();
  }

  Behavior<T> onPermit(TypedActorContext<T> ctx) {
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
      started = Behavior.validateAsInitial(Behavior.start(initial(), ctx));
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
                : replayMessage(ctx, live, (T) item);
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

  Behavior<T> onResetDue(TypedActorContext<T> ctx) {
    recovery.timer = null;
    reset(ctx, false);
    return Behaviors.same();
  }

  /** The child asked for a reset ({@code BackoffSupervisor.resetBackoff}); nothing if count is 0. */
  void resetNow(TypedActorContext<T> ctx) {
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

  void cancelOwnTimers() {
    if (recovery != null) {
      recovery.cancelTimers();
    }
  }
}
