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
 * INTERNAL API: the restart episode, superclass of {@link BackoffBehavior}: failure, backoff,
 * restart with stash replay, reset. A superclass rather than a helper, so that the two form no
 * circle and an actor holds no extra object. Its ticks use {@code scheduleOnce}: ManualTime times
 * them.
 */
abstract class BackoffEpisode<T> extends ExtensibleBehavior<T> implements ReWrap.Layer {

  static final int RETIRED = 1; // replaced by a newer layer with an equal policy
  static final int FINAL_STOP_SEEN = 2; // the child's next stop stops the actor

  /** The started child; null in a backoff (so {@code receive} tests only this) or without one. */
  Behavior<T> current;

  Recovery recovery; // from the first failure until the reset
  int flags;

  abstract Behavior<T> initial();

  abstract Predicate<Object> finalStop();

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

  final boolean isRunning() {
    return current != null;
  }

  private int restarts() {
    return recovery == null ? 0 : recovery.restarts;
  }

  /**
   * Only a non-fatal persistence failure (a journal or store failed) is handled; any other failed
   * behavior is a stop the child's author wrote and is let through, as under Pekko's supervisors.
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

  /** A dead result, not a handled failure: a failed one is let through, a stop maybe restarted. */
  Behavior<T> stoppedOrFailed(
      TypedActorContext<T> ctx, Behavior<T> result, Behavior<T> live, Object trigger) {
    if (result instanceof BehaviorImpl.FailedBehavior) {
      innerStop(ctx, result);
      return result;
    }
    return restartsOnStop(trigger) ? onStopped(ctx, result, live) : result;
  }

  /** A PoisonPill (passivation, hand-off) or a stop after a final stop message is final. */
  private boolean restartsOnStop(Object trigger) {
    return policy().isRestartOnStop()
        && !(trigger instanceof PoisonPill)
        && (flags & (FINAL_STOP_SEEN | RETIRED)) == 0;
  }

  final void watchFinalStop(TypedActorContext<T> ctx, Object msg) {
    if ((flags & FINAL_STOP_SEEN) == 0 && matchesFinalStop(ctx, msg)) {
      flags |= FINAL_STOP_SEEN;
    }
  }

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

  private void threw(
      TypedActorContext<T> ctx,
      Throwable t,
      String what,
      Object callback,
      Object msg,
      String instead) {
    SupervisorReports.callbackThrew(policy(), ctx.asJava(), t, what, callback, msg, instead);
  }

  private void innerStop(TypedActorContext<T> ctx, Behavior<T> failed) {
    Throwable cause = failureOf(failed);
    if (NonFatal.apply(cause)) { // a fatal error is not ours to report
      SupervisorReports.innerStop(policy(), ctx.asJava(), restarts(), cause);
    }
  }

  /** {@code PostStop} and the stopped behavior's callback run as when an actor stops. */
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

  /**
   * Gives up (rethrows) or schedules a restart. An {@code UnstashException} stands for its cause,
   * thrown by the behavior it carries. {@code failed} is null if the child never started. A {@code
   * stop} (a {@link ChildStopped}) takes no stop rule, hint or adaptive budget, and at {@code
   * maxRestarts} stops the actor cleanly instead of failing it.
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
   * Replays the stash in order; a stop sends the rest to dead letters, a failure keeps it for the
   * next restart. Taken out of the recovery meanwhile, so that a layer taking it over never sees it.
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

  void resetNow(TypedActorContext<T> ctx) {
    if (restarts() > 0) {
      reset(ctx, true); // cancels the pending reset, if any
    }
  }

  private void reset(TypedActorContext<T> ctx, boolean byChild) {
    int before = restarts();
    recovery = recovery.afterReset(policy());
    SupervisorReports.reset(policy(), ctx.asJava(), before, byChild);
  }

  /** The user's timers too, as Pekko's RestartSupervisor does, through the same call. */
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
