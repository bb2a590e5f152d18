package dev.supervision.backoff.internal;

import dev.supervision.backoff.AdaptiveRestartBudget;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.ChildStopped;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import dev.supervision.backoff.internal.util.Causes;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.apache.pekko.actor.Cancellable;
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
 * the child's result (BENCHMARKS.md measures it).
 *
 * <p>Life cycle. While running, messages and signals go to the child. A failure (thrown in {@code
 * setup}, a message or a signal, or a failed behavior that carries a persistence failure, {@link
 * Causes#isPersistenceFailure}) cancels the actor's timers, signals {@code PreRestart}, stops the
 * children (unless the policy keeps them) and schedules a {@link Tick} with {@code
 * ActorContext.scheduleOnce}, so {@code ManualTime} times the restart. During the backoff messages
 * and signals are stashed up to the capacity, the rest published as {@link Dropped}. When the tick
 * has fired and the children have terminated (and the budget, if any, granted a permit), the
 * initial behavior is started again, the stash replayed in order and a reset tick scheduled. A stop
 * of the child stops the actor, unless the policy restarts on stop ({@link #stoppedOrFailed}); any
 * other failed behavior (an inner {@code stop()}) is let through.
 *
 * <p>Other homes: re-wrapping (one layer per distinct policy) is {@link ReWrap}; every log line and
 * event is {@link SupervisorReports}; the options that need per-actor state of their own (a final
 * stop message, a handler while backing off) are the subclass {@link Classic}, so that other actors
 * pay neither its fields nor its test on every message. Ticks and permits are {@link Signal}s (as
 * in Pekko's supervisor), so that a stale one reaching a user behavior is an unhandled signal; each
 * carries its owner and a generation so that nested supervisors and cancelled ticks are told apart.
 *
 * @param <T> the child's message type
 */
public class BackoffBehavior<T> extends ExtensibleBehavior<T> {

  /**
   * The behavior started at every restart: the wrapped one, or the one wrapped by the latest re-wrap
   * with an equal policy that this layer adopted.
   */
  Behavior<T> initial;

  final BackoffPolicy policy;

  /** Whether anyone wants events (listeners or the event stream): events are built only then. */
  private final boolean listening;

  /**
   * The child's started behavior: never {@code same}, {@code unhandled}, deferred or stopped. Always
   * null during a backoff (the failed behavior is released), so {@code receive} tests only this
   * field while the actor runs; also null after giving up without a child.
   */
  Behavior<T> current;

  boolean inBackoff;
  private boolean restartDue;
  private boolean permitRequested;
  int restarts;
  long generation;
  DelaySchedule schedule;

  /** The budget's gate, looked up when the actor starts; again only if the registry forgot it. */
  private GateRegistry.Handle gate;

  SplittableRandom random;
  private ArrayDeque<Object> stash;
  private Set<ActorRef<Void>> stoppingChildren;

  /**
   * The pending restart tick (during a backoff) or reset tick (after a restart): never both, so one
   * field (an actor's supervisor stays at 72 bytes).
   */
  Cancellable timer;

  /**
   * Whose ticks and permits this layer takes: itself, or, until its pending reset has fired or been
   * cancelled, the layer it replaced (see {@code ReWrap.handOver}). Null once this layer has been replaced
   * (retired): it then handles no failure.
   */
  Object owner = this;

  private BackoffBehavior(Behavior<T> initial, BackoffPolicy policy) {
    this.initial = initial;
    this.policy = policy;
    this.listening = !policy.getListeners().isEmpty() || policy.isEventStreamPublishing();
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
   * What {@link #supervise} returns: a deferred behavior (as {@code Behaviors.setup} is) that
   * creates the actor's supervisor when it starts. Its own class, so that a supervisor can recognize
   * a re-wrap with an equal policy among its child's results and adopt it instead of nesting it.
   */
  static final class Wrap<T> extends BehaviorImpl.DeferredBehavior<T> {
    final Behavior<T> initial;
    final BackoffPolicy policy;

    Wrap(Behavior<T> initial, BackoffPolicy policy) {
      this.initial = initial;
      this.policy = policy;
    }

    @Override
    public Behavior<T> apply(TypedActorContext<T> ctx) {
      return (Classic.isNeeded(policy)
              ? new Classic<>(initial, policy)
              : new BackoffBehavior<>(initial, policy))
          .start(ctx);
    }

    @Override
    public String toString() {
      return "BackoffSupervisor.wrap(" + initial + ", " + policy + ")";
    }
  }

  /**
   * The supervisor of a policy that uses a classic option whose state the plain one has no room
   * for: a final stop message (looked at for every message until one matches) or a handler while
   * backing off (given the time left of the backoff, counted by a {@link Countdown} that runs only
   * while a backoff of such a policy is pending). Its own class, so that an actor of any other
   * policy neither pays the predicate's test on its messages nor the fields in memory.
   */
  static final class Classic<T> extends BackoffBehavior<T> {
    /** The policy's final stop predicate if it restarts on stop, else null. */
    private final Predicate<Object> finalStop;

    /** Whether the policy has a handler while backing off. */
    private final boolean hasHandler;

    /** Whether the child has received a final stop message: its next stop stops the actor. */
    boolean finalStopSeen;

    /**
     * The time left of the current backoff, for the handler while backing off: only for a policy
     * with a handler, and only while a backoff is pending; else null.
     */
    private Countdown countdown;

    Classic(Behavior<T> initial, BackoffPolicy policy) {
      super(initial, policy);
      this.finalStop = policy.isRestartOnStop() ? policy.getFinalStopMessage().orElse(null) : null;
      this.hasHandler = policy.getHandlerWhileBackingOff().isPresent();
    }

    /** A backoff of {@code delayNanos} starts: with a handler, the countdown starts too. */
    void backoffStarts(ActorContext<T> jctx, long delayNanos) {
      if (!hasHandler) {
        return;
      }
      Countdown started = new Countdown(delayNanos);
      Duration tick = Duration.ofNanos(started.tickNanos);
      started.scheduled(
          jctx.getSystem()
              .scheduler()
              .scheduleAtFixedRate(tick, tick, started, jctx.getExecutionContext()));
      countdown = started;
    }

    /**
     * What the handler is told: the time left, or, once the delay has passed (the restart waits for
     * stopped children or a permit, whose arrival the supervisor cannot know), minBackoff.
     */
    Duration untilRestart(boolean restartDue) {
      return restartDue || countdown == null ? policy.getMinBackoff() : countdown.untilRestart();
    }

    @Override
    void cancelOwnTimers() {
      super.cancelOwnTimers();
      stopCountdown();
    }

    /** Cancels the countdown, if one runs. */
    void stopCountdown() {
      if (countdown != null) {
        countdown.cancel();
        countdown = null;
      }
    }

    static boolean isNeeded(BackoffPolicy policy) {
      return policy.getHandlerWhileBackingOff().isPresent()
          || (policy.isRestartOnStop() && policy.getFinalStopMessage().isPresent());
    }

    @Override
    public Behavior<T> receive(TypedActorContext<T> ctx, T msg) {
      if (finalStop != null && !finalStopSeen && isRunning()) {
        finalStopSeen = matchesFinalStop(ctx, msg);
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

  /** The restart and reset timers' message. */
  private record Tick(Object owner, long generation, boolean reset)
      implements Signal, DeadLetterSuppression {}

  /** A restart budget's permit, sent by its gate. */
  private record Permit(Object owner, long generation) implements Signal, DeadLetterSuppression {}

  /** A signal kept in the stash, told apart from messages. */
  private record StashedSignal(Signal signal) {}

  // ---------------------------------------------------------------- start and dispatch

  private Behavior<T> start(TypedActorContext<T> ctx) {
    if (policy.getBudget().isPresent()) {
      // registers the budget now, so that a conflicting one fails the start with a clear message
      // instead of failing later, in the middle of a restart
      gate = GateRegistry.get(ctx.asJava().getSystem()).handle(policy.getBudget().get());
    }
    Behavior<T> started;
    try {
      started = Behavior.start(initial, ctx);
    } catch (Throwable t) {
      onFailure(ctx, t, null);
      return this;
    }
    // same or unhandled as the initial behavior is a programming error; the actor fails to start
    Behavior.validateAsInitial(started);
    if (!Behavior.isAlive(started)) {
      if (isHandledFailure(started)) {
        onFailure(ctx, failureOf(started), null);
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
  @SuppressWarnings("unchecked")
  public Behavior<T> receive(TypedActorContext<T> ctx, T msg) {
    Behavior<T> child = current;
    if (child == null) { // off the hot path: there is no child during a backoff
      if (inBackoff) {
        return messageDuringBackoff(ctx, msg);
      }
      return Behaviors.unhandled(); // gave up without a child, see receiveSignal
    }
    Behavior<T> result;
    try {
      result = interpretMessage(ctx, child, msg);
    } catch (Throwable t) {
      return onFailure(ctx, t, child);
    }
    return next(ctx, result, child, msg);
  }

  @Override
  public Behavior<T> receiveSignal(TypedActorContext<T> ctx, Signal signal) {
    if (signal instanceof Tick && ((Tick) signal).owner == owner) {
      Tick tick = (Tick) signal;
      if (tick.generation != generation) {
        return Behaviors.same(); // cancelled after it was enqueued
      }
      return tick.reset ? onResetDue(ctx) : onRestartDue(ctx);
    }
    if (signal instanceof Permit && ((Permit) signal).owner == owner) {
      Permit permit = (Permit) signal;
      if (permit.generation != generation || !permitRequested) {
        return Behaviors.same(); // granted after we stopped waiting
      }
      return onPermit(ctx);
    }
    if (signal == ResetRequest.INSTANCE) {
      if (inBackoff) {
        return Behaviors.same(); // asked by the incarnation that failed since
      }
      if (owner != null) {
        resetNow(ctx);
      } // and on to the child: nested supervisors reset too; a plain behavior leaves it unhandled
    }
    if (inBackoff) {
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
        throw sneaky(t); // an outer supervisor is restarting us; not ours to handle
      }
      return onFailure(ctx, t, child);
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
          ? onFailure(ctx, failureOf(result), child)
          : stoppedOrFailed(ctx, result, child, trigger);
    }
    if (ReWrap.replacedBy(this, result)) {
      return result; // a newer layer with an equal policy took over; this one leaves the stack
    }
    current = result; // already started by Behavior.interpretMessage
    return Behaviors.same();
  }

  private boolean isRetired() {
    return owner == null;
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
    Throwable cause = ((BehaviorImpl.FailedBehavior) result).cause();
    return NonFatal.apply(cause) && Causes.isPersistenceFailure(cause);
  }

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
    if (policy.isRestartOnStop() && !isFinalStop(trigger) && !isRetired()) {
      return onStopped(ctx, result, live);
    }
    return result;
  }

  /** Whether a stop of the child on {@code trigger} (a message, a signal, or null) is final. */
  private boolean isFinalStop(Object trigger) {
    if (trigger instanceof PoisonPill) {
      return true; // from outside: a PoisonPill (passivation, hand-off) stops for good
    }
    return this instanceof Classic && ((Classic<T>) this).finalStopSeen;
  }

  /** Whether the child runs (the actor is not in a backoff and has not given up). */
  final boolean isRunning() {
    return current != null;
  }

  /** The policy's final stop predicate on {@code msg}; one that throws is no match (one WARN line). */
  final boolean matchesFinalStop(TypedActorContext<T> ctx, Object msg) {
    Predicate<Object> predicate = policy.getFinalStopMessage().orElse(null);
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
    if (!NonFatal.apply(cause)) {
      return; // a fatal error is not ours to report
    }
    SupervisorReports.innerStop(policy, listening, ctx.asJava(), restarts, cause);
  }

  /**
   * The child stopped itself under {@code withRestartOnStop}: the behavior that stopped gets {@code
   * PostStop} and the stopped behavior's callback runs (as when an actor stops), then the stop is
   * handled like a failure.
   */
  private Behavior<T> onStopped(TypedActorContext<T> ctx, Behavior<T> stopped, Behavior<T> live) {
    ActorContext<T> jctx = ctx.asJava();
    current = null;
    try {
      if (live != null) {
        Behavior.interpretSignal(live, ctx, PostStop.instance());
      }
      if (stopped instanceof BehaviorImpl.StoppedBehavior) {
        ((BehaviorImpl.StoppedBehavior<T>) stopped).onPostStop(ctx);
      }
    } catch (Throwable t) {
      signalHandlerThrew(jctx, t, "PostStop after it stopped itself");
    }
    return onFailure(ctx, new ChildStopped(), null, true);
  }

  /** Handles a message that arrived during a backoff: a final stop, the handler, or the stash. */
  private Behavior<T> messageDuringBackoff(TypedActorContext<T> ctx, T msg) {
    if (policy.isRestartOnStop() && matchesFinalStop(ctx, msg)) {
      ActorContext<T> jctx = ctx.asJava();
      if (policy.isLoggingEnabled()) {
        SupervisorReports.log(
            policy,
            jctx,
            Level.DEBUG,
            null,
            "Supervised actor [{}] got a final stop message during its backoff; it stops",
            jctx.getSelf().path());
      }
      return Behaviors.stopped(); // PostStop follows: the stash is published as Dropped
    }
    BackoffHandler handler = policy.getHandlerWhileBackingOff().orElse(null);
    if (handler != null && answered(ctx, handler, msg)) {
      return Behaviors.same();
    }
    stashOrDrop(ctx, msg);
    return Behaviors.same();
  }

  /** Whether the handler answered {@code msg}; one that throws did not (one WARN line). */
  private boolean answered(TypedActorContext<T> ctx, BackoffHandler handler, T msg) {
    // once the delay has passed, the restart waits for children or a permit: see Classic
    Duration untilRestart = ((Classic<T>) this).untilRestart(restartDue);
    try {
      return handler.handle(msg, untilRestart);
    } catch (Throwable t) {
      callbackThrew(ctx, t, "handler while backing off", handler, msg, "the message is stashed");
      return false;
    }
  }

  /**
   * The child's handler of a signal threw {@code t} in {@code where}: a fatal error is rethrown,
   * anything else gets one ERROR line, and the restart goes on.
   */
  private void signalHandlerThrew(ActorContext<T> jctx, Throwable t, String where) {
    if (!NonFatal.apply(t)) {
      throw sneaky(t);
    }
    SupervisorReports.log(
        policy,
        jctx,
        Level.ERROR,
        t,
        "Supervised actor [{}] failed in {}; the restart goes on",
        jctx.getSelf().path(),
        where);
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
    if (!NonFatal.apply(t)) {
      throw sneaky(t);
    }
    ActorContext<T> jctx = ctx.asJava();
    SupervisorReports.log(
        policy,
        jctx,
        Level.WARN,
        t,
        "Supervised actor [{}]: {} [{}] threw on a message of {}; {}",
        jctx.getSelf().path(),
        what,
        callback,
        msg == null ? "null" : msg.getClass().getName(),
        instead);
  }

  private static Throwable failureOf(Behavior<?> failed) {
    return ((BehaviorImpl.FailedBehavior) failed).cause();
  }

  private Behavior<T> signalDuringBackoff(TypedActorContext<T> ctx, Signal signal) {
    if (signal instanceof Terminated
        && stoppingChildren != null
        && stoppingChildren.remove(((Terminated) signal).getRef())) {
      return restartDue && stoppingChildren.isEmpty() ? restartOrAskBudget(ctx) : Behaviors.same();
    }
    if (signal == PostStop.instance()) {
      stoppedDuringBackoff(ctx);
      return Behaviors.same();
    }
    if (signal instanceof Tick || signal instanceof Permit) {
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

  // ---------------------------------------------------------------- failure

  /**
   * Handles a failure: gives up (rethrows) or schedules a restart and returns {@code same}.
   *
   * @param thrown what the child threw, or the cause of the failed behavior it returned; an {@code
   *     UnstashException} (thrown by a {@code StashBuffer} while unstashing) stands for its cause,
   *     thrown by the behavior it carries
   * @param failed the behavior that threw (gets PreRestart, or PostStop from the actor if we give
   *     up), or null if the child never started
   */
  private Behavior<T> onFailure(TypedActorContext<T> ctx, Throwable thrown, Behavior<T> failed) {
    return onFailure(ctx, thrown, failed, false);
  }

  /**
   * As {@link #onFailure(TypedActorContext, Throwable, Behavior)}; with {@code stop}, for a child
   * that stopped itself under {@code withRestartOnStop} ({@code thrown} is a {@link ChildStopped}):
   * no stop rule, hint or adaptive budget applies, and reaching {@code maxRestarts} stops the actor
   * cleanly instead of failing it.
   */
  private Behavior<T> onFailure(
      TypedActorContext<T> ctx, Throwable thrown, Behavior<T> failed, boolean stop) {
    Throwable failure = thrown;
    Behavior<T> failedBehavior = failed;
    if (thrown instanceof UnstashException) {
      UnstashException<?> unstash = (UnstashException<?>) thrown;
      failure = unstash.cause();
      failedBehavior = narrowBehavior(unstash.behavior());
    }
    if (!NonFatal.apply(failure)) {
      throw sneaky(failure);
    }
    ActorContext<T> jctx = ctx.asJava();
    cancelAllTimers(ctx);
    current = failedBehavior; // gets PostStop through us if we give up
    if (!stop && policy.isPermanent(failure)) {
      throw giveUp(ctx, failure, BackoffEvent.Reason.PERMANENT_FAILURE);
    }
    if (!stop && policy.getBudget().orElse(null) instanceof AdaptiveRestartBudget) {
      // an adaptive budget learns from failures (permanent ones and stops excepted)
      gate(jctx).tell(new GateProtocol.Failed(self(jctx)));
    }
    if (policy.getMaxRestarts().isPresent() && restarts >= policy.getMaxRestarts().getAsInt()) {
      if (stop) {
        giveUp(ctx, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED); // does not throw
        return Behaviors.stopped(); // stopped, not failed: a watching parent sees Terminated
      }
      throw giveUp(ctx, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED);
    }
    current = null;
    if (failedBehavior != null) {
      try {
        Behavior.interpretSignal(failedBehavior, ctx, PreRestart.instance());
      } catch (Throwable t) {
        signalHandlerThrew(jctx, t, "PreRestart");
      }
    }
    if (policy.isStopChildren()) {
      stopChildren(jctx); // the restart waits for their Terminated
    }
    restarts++;
    if (schedule == null) {
      schedule =
          new DelaySchedule(
              policy.getMinBackoff(),
              policy.getMaxBackoff(),
              policy.getMultiplier(),
              policy.getJitter());
    }
    long delayNanos = stop ? nextDelay(jctx) : withRetryAfter(jctx, nextDelay(jctx), failure);
    Duration delay = Duration.ofNanos(delayNanos);
    inBackoff = true;
    restartDue = false;
    if (stash == null) {
      stash = new ArrayDeque<>(Math.min(16, Math.max(1, stashCapacity(ctx))));
    }
    timer = jctx.scheduleOnce(delay, self(jctx), new Tick(owner, ++generation, false));
    if (this instanceof Classic) {
      ((Classic<T>) this).backoffStarts(jctx, delayNanos);
    }
    SupervisorReports.restartScheduled(policy, listening, jctx, restarts, failure, stop, delay);
    return Behaviors.same();
  }

  /**
   * Stops the actor: throws the failure (the actor then gives PostStop to us); for a {@link
   * ChildStopped} it only reports and returns null, and the caller returns {@code stopped}. Called
   * by {@link #onFailure} only, after it has cancelled every timer.
   */
  private RuntimeException giveUp(
      TypedActorContext<T> ctx, Throwable failure, BackoffEvent.Reason reason) {
    ActorContext<T> jctx = ctx.asJava();
    inBackoff = false;
    dropStash(ctx, "actor stopped by its backoff supervisor: " + reason);
    SupervisorReports.gaveUp(policy, listening, jctx, restarts, failure, reason);
    if (failure instanceof ChildStopped) {
      return null; // the child stopped itself: the caller stops the actor cleanly
    }
    return sneaky(failure);
  }

  /**
   * The policy's delay, lengthened to the first usable {@link RetryAfter} hint of the cause chain.
   * A hint that throws is skipped (one WARN line names it), as are null, zero and negative hints:
   * a broken hint never costs the restart.
   */
  private long withRetryAfter(ActorContext<T> jctx, long delayNanos, Throwable failure) {
    for (Throwable t : Causes.chain(failure)) {
      if (t instanceof RetryAfter) {
        Duration hint;
        try {
          hint = ((RetryAfter) t).retryAfter();
        } catch (Throwable broken) {
          if (!NonFatal.apply(broken)) {
            throw sneaky(broken);
          }
          SupervisorReports.log(
              policy,
              jctx,
              Level.WARN,
              broken,
              "Supervised actor [{}]: the RetryAfter hint of {} threw {}; ignored, the policy's delay applies",
              jctx.getSelf().path(),
              t.getClass().getName(),
              Causes.describe(broken));
          continue;
        }
        if (hint != null && !hint.isNegative() && !hint.isZero()) {
          long hintNanos =
              Math.min(
                  policy.getMaxRetryAfter().toNanos(),
                  hint.compareTo(policy.getMaxRetryAfter()) > 0 ? Long.MAX_VALUE : hint.toNanos());
          return Math.max(delayNanos, hintNanos);
        }
      }
    }
    return delayNanos;
  }

  /** The next delay of the schedule; a broken user jitter gets one WARN line (see DelaySchedule). */
  private long nextDelay(ActorContext<T> jctx) {
    long delayNanos = schedule.nextDelayNanos(random(jctx));
    DelaySchedule.BrokenJitter broken = schedule.takeBrokenJitter();
    if (broken != null) {
      SupervisorReports.log(
          policy,
          jctx,
          Level.WARN,
          broken.threw(),
          "Supervised actor [{}]: jitter [{}] {} for attempt {}; full jitter used for this attempt",
          jctx.getSelf().path(),
          broken.jitter(),
          broken.problem(),
          broken.attempt());
    }
    return delayNanos;
  }

  private void stopChildren(ActorContext<T> jctx) {
    List<ActorRef<Void>> children = jctx.getChildren();
    if (children.isEmpty()) {
      return;
    }
    if (stoppingChildren == null) {
      stoppingChildren = new HashSet<>();
    }
    for (ActorRef<Void> child : children) {
      // unwatch first: the failed incarnation may have used watchWith for this child
      jctx.unwatch(child);
      jctx.watch(child);
      jctx.stop(child);
      stoppingChildren.add(child);
    }
  }

  // ---------------------------------------------------------------- restart and reset

  private Behavior<T> onRestartDue(TypedActorContext<T> ctx) {
    restartDue = true;
    timer = null;
    if (this instanceof Classic) {
      ((Classic<T>) this).stopCountdown(); // the delay has passed: nothing left to count
    }
    if (stoppingChildren != null && !stoppingChildren.isEmpty()) {
      return Behaviors.same(); // waits for the children's Terminated
    }
    return restartOrAskBudget(ctx);
  }

  /** The delay has passed and the children are gone: restart, or ask the budget first. */
  private Behavior<T> restartOrAskBudget(TypedActorContext<T> ctx) {
    if (policy.getBudget().isEmpty()) {
      return restart(ctx);
    }
    ActorContext<T> jctx = ctx.asJava();
    String budget = policy.getBudget().get().getName();
    permitRequested = true;
    gate(jctx).tell(new GateProtocol.Acquire(self(jctx), new Permit(owner, generation)));
    SupervisorReports.waitingForPermit(policy, listening, jctx, restarts, budget);
    return Behaviors.same();
  }

  private Behavior<T> onPermit(TypedActorContext<T> ctx) {
    permitRequested = false;
    if (listening) {
      ActorContext<T> jctx = ctx.asJava();
      SupervisorReports.emit(
          policy,
          jctx,
          new BackoffEvent.PermitGranted(
              jctx.getSelf(), restarts, policy.getBudget().get().getName()));
    }
    Behavior<T> next = restart(ctx);
    if (!inBackoff
        && Behavior.isAlive(next)
        && policy.getBudget().get() instanceof AdaptiveRestartBudget) {
      // the restarted behavior is set up and has handled its stash: its probation starts now
      ActorContext<T> jctx = ctx.asJava();
      gate(jctx).tell(new GateProtocol.Started(self(jctx)));
    }
    return next;
  }

  /** The budget's gate: the one looked up at the start, unless it stopped since. */
  private ActorRef<GateProtocol.Command> gate(ActorContext<T> jctx) {
    if (gate == null || gate.isForgotten()) {
      gate = GateRegistry.get(jctx.getSystem()).handle(policy.getBudget().get());
    }
    return gate.gate();
  }

  /** Leaves the budget's queue, if the actor waits in it. */
  private void cancelPermitRequest(TypedActorContext<T> ctx) {
    if (permitRequested) {
      permitRequested = false;
      ActorContext<T> jctx = ctx.asJava();
      gate(jctx).tell(new GateProtocol.Cancel(self(jctx)));
    }
  }

  private Behavior<T> restart(TypedActorContext<T> ctx) {
    ActorContext<T> jctx = ctx.asJava();
    cancelAllTimers(ctx);
    Behavior<T> started;
    try {
      started = Behavior.validateAsInitial(Behavior.start(initial, ctx));
    } catch (Throwable t) {
      return onFailure(ctx, t, null);
    }
    if (!Behavior.isAlive(started)) {
      if (isHandledFailure(started)) {
        return onFailure(ctx, failureOf(started), null); // the stash is kept for the next restart
      }
      if (!(started instanceof BehaviorImpl.FailedBehavior)
          && policy.isRestartOnStop()
          && !isFinalStop(null)) {
        return onStopped(ctx, started, null); // stopped in its setup; the stash is kept
      }
    }
    inBackoff = false;
    restartDue = false;
    stoppingChildren = null; // empty by now; released like the stash
    timer =
        policy.isManualReset()
            ? null // only the child resets the count
            : jctx.scheduleOnce(
                policy.getResetAfter(), self(jctx), new Tick(owner, ++generation, true));
    SupervisorReports.restarted(policy, listening, jctx, restarts);
    return replayStash(ctx, started);
  }

  /**
   * Delivers the stash, in order, to the restarted child. Returns {@code same} with the child's
   * behavior in {@link #current}, or the child's stopped behavior (the rest of the stash goes to
   * dead letters), or {@code same} in a new backoff if the child failed again (the rest of the
   * stash is kept for the next restart).
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
    Behavior<T> live = started;
    ReWrap.replacedBy(this, started);
    ArrayDeque<Object> pending = stash;
    while (pending != null && !pending.isEmpty()) {
      Object item = pending.poll();
      if (this instanceof Classic
          && !(item instanceof StashedSignal)
          && ((Classic<T>) this).finalStop != null
          && !((Classic<T>) this).finalStopSeen) {
        ((Classic<T>) this).finalStopSeen = matchesFinalStop(ctx, item);
      }
      Behavior<T> result;
      try {
        result =
            item instanceof StashedSignal
                ? Behavior.interpretSignal(live, ctx, ((StashedSignal) item).signal)
                : interpretMessage(ctx, live, (T) item);
      } catch (Throwable t) {
        if (isRetired()) {
          throw sneaky(t); // the layer that took over gave up; not ours to handle
        }
        return onFailure(ctx, t, live);
      }
      if (Behavior.isUnhandled(result) && !(item instanceof StashedSignal)) {
        ActorContext<T> jctx = ctx.asJava();
        jctx.getSystem()
            .eventStream()
            .tell(
                new EventStream.Publish<>(
                    new UnhandledMessage(
                        item,
                        org.apache.pekko.actor.ActorRef.noSender(),
                        Adapter.toClassic(jctx.getSelf()))));
      }
      if (!Behavior.isAlive(result)) {
        if (isHandledFailure(result) && !isRetired()) {
          return onFailure(ctx, failureOf(result), live); // the rest of the stash is kept
        }
        if (!(result instanceof BehaviorImpl.FailedBehavior)
            && policy.isRestartOnStop()
            && !isRetired()
            && !isFinalStop(item instanceof StashedSignal ? ((StashedSignal) item).signal : item)) {
          return onStopped(ctx, result, live); // the rest of the stash is kept
        }
        if (result instanceof BehaviorImpl.FailedBehavior && !isRetired()) {
          innerStop(ctx, result);
        }
        current = live; // gets PostStop through us
        dropStash(ctx, "actor stopped while its stash was replayed");
        return result;
      }
      if (result != Behaviors.<T>same() && !Behavior.isUnhandled(result)) {
        ReWrap.replacedBy(this, result);
      }
      live = Behavior.canonicalize(result, live, ctx);
    }
    stash = null; // released: an actor that stays healthy keeps no stash
    if (isRetired()) {
      return live; // a newer layer with an equal policy took over
    }
    current = live;
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
    return Behavior.start(ReWrap.adopt(this, result), ctx);
  }

  private Behavior<T> onResetDue(TypedActorContext<T> ctx) {
    timer = null;
    owner = this; // no tick of a replaced layer is pending any more
    reset(ctx, false);
    return Behaviors.same();
  }

  /** The child asked for a reset ({@code BackoffSupervisor.resetBackoff}); nothing if count is 0. */
  private void resetNow(TypedActorContext<T> ctx) {
    if (restarts == 0 && schedule == null) {
      return;
    }
    cancelOwnTimers(); // the pending reset, if any
    reset(ctx, true);
  }

  private void reset(TypedActorContext<T> ctx, boolean byChild) {
    ActorContext<T> jctx = ctx.asJava();
    int before = restarts;
    restarts = 0;
    // Released rather than reset, so that an actor that has recovered holds no more than one that
    // never failed (about 100 bytes less per actor; a million-cell crash storm left 92 MiB behind).
    // A fresh schedule starts at attempt 0, exactly like a reset one. An unseeded random is drawn
    // afresh at the next failure; a seeded one is kept so that its sequence continues.
    schedule = null;
    if (policy.getRandomSeed().isEmpty()) {
      random = null;
    }
    SupervisorReports.reset(policy, listening, jctx, before, byChild);
  }

  private void stoppedDuringBackoff(TypedActorContext<T> ctx) {
    ActorContext<T> jctx = ctx.asJava();
    inBackoff = false;
    cancelOwnTimers();
    cancelPermitRequest(ctx);
    int dropped = dropStash(ctx, "actor stopped during its backoff");
    SupervisorReports.stoppedDuringBackoff(policy, listening, jctx, restarts, dropped);
  }

  // ---------------------------------------------------------------- helpers

  private void stashOrDrop(TypedActorContext<T> ctx, Object item) {
    int capacity = stashCapacity(ctx);
    if (stash.size() < capacity) {
      stash.add(item);
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
    OptionalInt set = policy.getStashCapacitySetting();
    return set.isPresent()
        ? set.getAsInt()
        : ctx.asJava().getSystem().settings().RestartStashCapacity();
  }

  private int dropStash(TypedActorContext<T> ctx, String reason) {
    ArrayDeque<Object> pending = stash;
    stash = null;
    if (pending == null) {
      return 0;
    }
    int count = pending.size();
    for (Object item : pending) {
      publishDropped(ctx, item, reason);
    }
    return count;
  }

  private static void publishDropped(TypedActorContext<?> ctx, Object item, String reason) {
    Object payload = item instanceof StashedSignal ? ((StashedSignal) item).signal : item;
    ActorContext<?> jctx = ctx.asJava();
    jctx.getSystem()
        .eventStream()
        .tell(
            new EventStream.Publish<>(
                new Dropped(
                    payload,
                    reason,
                    org.apache.pekko.actor.ActorRef.noSender(),
                    Adapter.toClassic(jctx.getSelf()))));
  }

  /** Cancels the user's timers (as Pekko's supervisor does) and our own. */
  private void cancelAllTimers(TypedActorContext<T> ctx) {
    // Pekko's own RestartSupervisor does the same; there is no public API to cancel another
    // behavior's TimerScheduler timers, and this one is a no-op for actors that never used timers.
    ctx.asScala().cancelAllTimers();
    cancelOwnTimers();
  }

  void cancelOwnTimers() {
    generation++; // makes any tick already in the mailbox stale
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    if (owner != null) {
      owner = this; // every pending tick is stale now, those of a replaced layer included
    }
  }

  private SplittableRandom random(ActorContext<T> jctx) {
    if (random == null) {
      long seed;
      if (policy.getRandomSeed().isPresent()) {
        seed =
            policy.getRandomSeed().getAsLong()
                ^ pathHash(jctx.getSelf().path().toStringWithoutAddress());
      } else {
        seed = ThreadLocalRandom.current().nextLong();
      }
      random = new SplittableRandom(seed);
    }
    return random;
  }

  /** A 64-bit FNV-1a hash, so that paths differing in one character give unrelated seeds. */
  static long pathHash(String path) {
    long hash = 0xcbf29ce484222325L;
    for (int i = 0; i < path.length(); i++) {
      hash ^= path.charAt(i);
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  /** The actor's own ref, for the ticks and permits (signals, delivered as such by the actor). */
  @SuppressWarnings("unchecked")
  private static ActorRef<Object> self(ActorContext<?> jctx) {
    return (ActorRef<Object>) (ActorRef<?>) jctx.getSelf();
  }

  @SuppressWarnings("unchecked")
  private static <T> Behavior<T> narrowBehavior(Behavior<?> behavior) {
    return (Behavior<T>) behavior;
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  @Override
  public String toString() {
    return "BackoffSupervisor(" + policy + ")";
  }
}
