package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.RetryAfter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import scala.util.control.NonFatal;

/**
 * INTERNAL API: the interceptor behind {@code BackoffSupervisor.wrap}. One instance per actor
 * (created by the supplier given to {@code Behaviors.intercept}); all state is confined to the
 * actor, so nothing here is synchronized.
 *
 * <p>Life cycle. While {@code running}, messages and signals go straight to the child; the hot path
 * is one boolean test and a try block. A failure (in {@code setup}, a message or a signal) cancels
 * the actor's timers, signals {@code PreRestart} to the failed behavior, stops its children, draws a
 * delay and schedules a {@link Tick} with {@code ActorContext.scheduleOnce}, so the system
 * scheduler (and therefore {@code ManualTime}) times the restart. During the backoff the inner
 * behavior is {@code Behaviors.empty()}; messages and signals are stashed up to the capacity, the
 * rest are published as {@link Dropped}. The restart happens when the tick has fired and every
 * stopped child has terminated: the initial behavior is started again, the stash is replayed in
 * order, and a reset tick is scheduled {@code resetAfter} later.
 *
 * <p>Ticks are {@link Signal}s (as in Pekko's own supervisor) so that a stale tick reaching a user
 * behavior is an unhandled signal, never a {@code ClassCastException}; each carries its owner and a
 * generation so that nested supervisors and cancelled ticks are told apart.
 *
 * @param <T> the child's message type
 */
public final class BackoffInterceptor<T> extends BehaviorInterceptor<Object, T> {

  /**
   * The supervisor's own logger. Not {@code ctx.getLog()}: Pekko names an actor's logger after the
   * first class on the stack that asks for it, so asking from here would rename the user's logger
   * for the rest of the actor's life. Every line names the actor's path and sets the {@code
   * pekkoSource} MDC key as Pekko's actor loggers do.
   */
  static final Logger LOG = LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");

  private final Behavior<T> initial;
  private final BackoffPolicy policy;
  /** Whether anyone wants events (listeners or the event stream): events are built only then. */
  private final boolean listening;

  private boolean inBackoff;
  private boolean restartDue;
  private boolean permitRequested;
  private int restarts;
  private long generation;
  private DelaySchedule schedule;
  private SplittableRandom random;
  private ArrayDeque<Object> stash;
  private Set<ActorRef<Void>> stoppingChildren;
  private Cancellable restartTimer;
  private Cancellable resetTimer;

  /**
   * A supervisor for one actor.
   *
   * @param initial the behavior started at every (re)start
   * @param policy the policy
   */
  public BackoffInterceptor(Behavior<T> initial, BackoffPolicy policy) {
    super(Object.class);
    this.initial = initial;
    this.policy = policy;
    this.listening = !policy.getListeners().isEmpty() || policy.isEventStreamPublishing();
  }

  /** The restart and reset timers' message. */
  private record Tick(BackoffInterceptor<?> owner, long generation, boolean reset)
      implements Signal, DeadLetterSuppression {}

  /** A restart budget's permit, sent by its gate. */
  private record Permit(BackoffInterceptor<?> owner, long generation) implements Signal, DeadLetterSuppression {}

  /** A signal kept in the stash, told apart from messages. */
  private record StashedSignal(Signal signal) {}

  // ---------------------------------------------------------------- interception

  @Override
  public Behavior<T> aroundStart(TypedActorContext<Object> ctx, PreStartTarget<T> target) {
    if (policy.getBudget().isPresent()) {
      // registers the budget now, so that a conflicting one fails the start with a clear message
      // instead of failing later, in the middle of a restart
      RestartBudgets.get(ctx.asJava().getSystem()).gate(policy.getBudget().get());
    }
    try {
      return target.start(ctx);
    } catch (Throwable t) {
      return onFailure(ctx, t, null, null);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public Behavior<T> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<T> target) {
    if (inBackoff) {
      stashOrDrop(ctx, msg);
      return Behaviors.same();
    }
    try {
      return target.apply(ctx, (T) msg);
    } catch (Throwable t) {
      return onFailure(ctx, t, () -> target.signalRestart(ctx), null);
    }
  }

  @Override
  public Behavior<T> aroundSignal(TypedActorContext<Object> ctx, Signal signal, SignalTarget<T> target) {
    if (signal instanceof Tick) {
      Tick tick = (Tick) signal;
      if (tick.owner != this) {
        return target.apply(ctx, signal); // a nested supervisor's tick
      }
      if (tick.generation != generation) {
        return Behaviors.same(); // cancelled after it was enqueued
      }
      return tick.reset ? onResetDue(ctx) : onRestartDue(ctx);
    }
    if (signal instanceof Permit) {
      Permit permit = (Permit) signal;
      if (permit.owner != this) {
        return target.apply(ctx, signal);
      }
      if (permit.generation != generation || !permitRequested) {
        return Behaviors.same(); // granted after we stopped waiting
      }
      return onPermit(ctx);
    }
    if (inBackoff) {
      return signalDuringBackoff(ctx, signal);
    }
    if (signal == PostStop.instance()) {
      cancelOwnTimers();
      return target.apply(ctx, signal);
    }
    try {
      return target.apply(ctx, signal);
    } catch (Throwable t) {
      if (signal == PreRestart.instance()) {
        throw sneaky(t); // an outer supervisor is restarting us; not ours to handle
      }
      return onFailure(ctx, t, () -> target.apply(ctx, PreRestart.instance()), null);
    }
  }

  private Behavior<T> signalDuringBackoff(TypedActorContext<Object> ctx, Signal signal) {
    if (signal instanceof Terminated
        && stoppingChildren != null
        && stoppingChildren.remove(((Terminated) signal).getRef())) {
      return restartDue && stoppingChildren.isEmpty() ? restartOrAskBudget(ctx) : Behaviors.same();
    }
    if (signal == PostStop.instance()) {
      stoppedDuringBackoff(ctx);
      return Behaviors.same();
    }
    if (signal instanceof org.apache.pekko.actor.typed.internal.PoisonPill) {
      // Cluster Sharding (passivation, hand-off) and Cluster Singleton without a stop message stop an
      // actor with PoisonPill: their interceptor, outside ours, stops it if the signal is unhandled.
      // Stashed, the signal would be swallowed by the restarted behavior and the actor would never
      // stop, while sharding buffers its messages until it does. Unhandled, it stops the actor now.
      return Behaviors.unhandled();
    }
    stashOrDrop(ctx, new StashedSignal(signal));
    return Behaviors.same();
  }

  // ---------------------------------------------------------------- failure

  /**
   * Handles a failure: gives up (rethrows) or schedules a restart and returns the backoff behavior.
   *
   * @param preRestart signals PreRestart to the failed behavior, or null if it never started
   * @param failedForPostStop a behavior that must get PostStop if we give up, because the actor
   *     adapter will not deliver it (a behavior that failed while the stash was replayed), or null
   */
  private Behavior<T> onFailure(
      TypedActorContext<Object> ctx, Throwable failure, Runnable preRestart, Behavior<T> failedForPostStop) {
    if (!NonFatal.apply(failure)) {
      throw sneaky(failure);
    }
    ActorContext<Object> jctx = ctx.asJava();
    cancelAllTimers(ctx);
    if (policy.isPermanent(failure)) {
      throw giveUp(ctx, failure, BackoffEvent.Reason.PERMANENT_FAILURE, failedForPostStop);
    }
    if (policy.getMaxRestarts().isPresent() && restarts >= policy.getMaxRestarts().getAsInt()) {
      throw giveUp(ctx, failure, BackoffEvent.Reason.MAX_RESTARTS_REACHED, failedForPostStop);
    }
    if (preRestart != null) {
      try {
        preRestart.run();
      } catch (Throwable t) {
        if (!NonFatal.apply(t)) {
          throw sneaky(t);
        }
        log(jctx, Level.ERROR, t, "Supervised actor [{}] failed in PreRestart", jctx.getSelf().path());
      }
    }
    stopChildren(jctx);
    restarts++;
    if (schedule == null) {
      schedule = new DelaySchedule(policy.getMinBackoff(), policy.getMaxBackoff(), policy.getMultiplier(), policy.getJitter());
    }
    long delayNanos = withRetryAfter(schedule.nextDelayNanos(random(jctx)), failure);
    Duration delay = Duration.ofNanos(delayNanos);
    inBackoff = true;
    restartDue = false;
    if (stash == null) {
      stash = new ArrayDeque<>(Math.min(16, Math.max(1, policy.getStashCapacity())));
    }
    restartTimer = jctx.scheduleOnce(delay, jctx.getSelf(), new Tick(this, ++generation, false));
    logFailure(jctx, failure, delay);
    if (listening) {
      emit(jctx, new BackoffEvent.RestartScheduled(jctx.getSelf(), restarts, delay, failure));
    }
    return Behaviors.empty();
  }

  private RuntimeException giveUp(
      TypedActorContext<Object> ctx, Throwable failure, BackoffEvent.Reason reason, Behavior<T> failedForPostStop) {
    ActorContext<Object> jctx = ctx.asJava();
    inBackoff = false;
    cancelOwnTimers();
    dropStash(ctx, "actor stopped by its backoff supervisor: " + reason);
    if (policy.isLoggingEnabled()) {
      log(jctx, Level.ERROR, failure, "Supervised actor [{}] stopped after {} restarts ({}): {}",
          jctx.getSelf().path(), restarts, reason, failure.toString());
    }
    if (listening) {
      emit(jctx, new BackoffEvent.GaveUp(jctx.getSelf(), restarts, failure, reason));
    }
    if (failedForPostStop != null) {
      try {
        Behavior.interpretSignal(failedForPostStop, narrow(ctx), PostStop.instance());
      } catch (Throwable t) {
        if (!NonFatal.apply(t)) {
          throw sneaky(t);
        }
        log(jctx, Level.ERROR, t, "Supervised actor [{}] failed in PostStop", jctx.getSelf().path());
      }
    }
    return sneaky(failure);
  }

  private long withRetryAfter(long delayNanos, Throwable failure) {
    Set<Throwable> seen = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RetryAfter) {
        Duration hint = ((RetryAfter) t).retryAfter();
        if (hint != null && !hint.isNegative() && !hint.isZero()) {
          long hintNanos = Math.min(
              policy.getMaxRetryAfter().toNanos(),
              hint.compareTo(policy.getMaxRetryAfter()) > 0 ? Long.MAX_VALUE : hint.toNanos());
          return Math.max(delayNanos, hintNanos);
        }
      }
      if (seen == null) {
        seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      }
      if (!seen.add(t)) {
        break; // a cause cycle
      }
    }
    return delayNanos;
  }

  private void stopChildren(ActorContext<Object> jctx) {
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

  private Behavior<T> onRestartDue(TypedActorContext<Object> ctx) {
    restartDue = true;
    restartTimer = null;
    if (stoppingChildren != null && !stoppingChildren.isEmpty()) {
      return Behaviors.same(); // waits for the children's Terminated
    }
    return restartOrAskBudget(ctx);
  }

  /** The delay has passed and the children are gone: restart, or ask the budget first. */
  private Behavior<T> restartOrAskBudget(TypedActorContext<Object> ctx) {
    if (policy.getBudget().isEmpty()) {
      return restart(ctx);
    }
    ActorContext<Object> jctx = ctx.asJava();
    String budget = policy.getBudget().get().getName();
    permitRequested = true;
    RestartBudgets.get(jctx.getSystem()).gate(policy.getBudget().get())
        .tell(new BudgetGate.Acquire(jctx.getSelf(), new Permit(this, generation)));
    if (policy.isLoggingEnabled()) {
      log(jctx, Level.DEBUG, null, "Supervised actor [{}] waits for a permit of restart budget [{}] (attempt {})",
          jctx.getSelf().path(), budget, restarts);
    }
    if (listening) {
      emit(jctx, new BackoffEvent.WaitingForPermit(jctx.getSelf(), restarts, budget));
    }
    return Behaviors.same();
  }

  private Behavior<T> onPermit(TypedActorContext<Object> ctx) {
    permitRequested = false;
    if (listening) {
      ActorContext<Object> jctx = ctx.asJava();
      emit(jctx, new BackoffEvent.PermitGranted(jctx.getSelf(), restarts, policy.getBudget().get().getName()));
    }
    return restart(ctx);
  }

  /** Leaves the budget's queue, if the actor waits in it. */
  private void cancelPermitRequest(TypedActorContext<Object> ctx) {
    if (permitRequested) {
      permitRequested = false;
      ActorContext<Object> jctx = ctx.asJava();
      RestartBudgets.get(jctx.getSystem()).gate(policy.getBudget().get())
          .tell(new BudgetGate.Cancel(jctx.getSelf()));
    }
  }

  private Behavior<T> restart(TypedActorContext<Object> ctx) {
    ActorContext<Object> jctx = ctx.asJava();
    cancelAllTimers(ctx);
    Behavior<T> started;
    try {
      started = Behavior.validateAsInitial(Behavior.start(initial, narrow(ctx)));
    } catch (Throwable t) {
      return onFailure(ctx, t, null, null);
    }
    inBackoff = false;
    restartDue = false;
    stoppingChildren = null; // empty by now; released like the stash
    resetTimer = jctx.scheduleOnce(policy.getResetAfter(), jctx.getSelf(), new Tick(this, ++generation, true));
    if (policy.isLoggingEnabled()) {
      log(jctx, Level.DEBUG, null, "Supervised actor [{}] restarted (attempt {})", jctx.getSelf().path(), restarts);
    }
    if (listening) {
      emit(jctx, new BackoffEvent.Restarted(jctx.getSelf(), restarts));
    }
    return replayStash(ctx, started);
  }

  @SuppressWarnings("unchecked")
  private Behavior<T> replayStash(TypedActorContext<Object> ctx, Behavior<T> started) {
    TypedActorContext<T> tctx = narrow(ctx);
    Behavior<T> current = started;
    ArrayDeque<Object> pending = stash;
    while (pending != null && !pending.isEmpty()) {
      if (!Behavior.isAlive(current)) {
        dropStash(ctx, "actor stopped while its stash was replayed");
        break;
      }
      Object next = pending.poll();
      Behavior<T> result;
      try {
        result = next instanceof StashedSignal
            ? Behavior.interpretSignal(current, tctx, ((StashedSignal) next).signal)
            : Behavior.interpretMessage(current, tctx, (T) next);
      } catch (Throwable t) {
        Behavior<T> failed = current;
        return onFailure(
            ctx, t, () -> Behavior.interpretSignal(failed, tctx, PreRestart.instance()), failed);
      }
      if (Behavior.isUnhandled(result) && !(next instanceof StashedSignal)) {
        ActorContext<Object> jctx = ctx.asJava();
        jctx.getSystem().eventStream().tell(new EventStream.Publish<>(
            new UnhandledMessage(next, org.apache.pekko.actor.ActorRef.noSender(), Adapter.toClassic(jctx.getSelf()))));
      }
      Behavior<T> previous = current;
      current = Behavior.canonicalize(result, current, tctx);
      if (current == Behaviors.<T>stopped()) {
        // A plain stopped() would get its PostStop delivered by the actor to the behavior we return
        // it from, which is the backoff's empty behavior; deliver it to the behavior that stopped.
        current = Behaviors.stopped(() -> {
          cancelOwnTimers();
          Behavior.interpretSignal(previous, tctx, PostStop.instance());
        });
      }
    }
    stash = null; // released: an actor that stays healthy keeps no stash
    return current;
  }

  private Behavior<T> onResetDue(TypedActorContext<Object> ctx) {
    ActorContext<Object> jctx = ctx.asJava();
    resetTimer = null;
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
    if (policy.isLoggingEnabled()) {
      log(jctx, Level.DEBUG, null, "Supervised actor [{}] ran {} without failing: backoff reset after {} restarts",
          jctx.getSelf().path(), policy.getResetAfter(), before);
    }
    if (listening) {
      emit(jctx, new BackoffEvent.BackoffReset(jctx.getSelf(), before));
    }
    return Behaviors.same();
  }

  private void stoppedDuringBackoff(TypedActorContext<Object> ctx) {
    ActorContext<Object> jctx = ctx.asJava();
    inBackoff = false;
    cancelOwnTimers();
    cancelPermitRequest(ctx);
    int dropped = dropStash(ctx, "actor stopped during its backoff");
    if (policy.isLoggingEnabled()) {
      log(jctx, Level.DEBUG, null, "Supervised actor [{}] stopped during its backoff; {} stashed messages dropped",
          jctx.getSelf().path(), dropped);
    }
    if (listening) {
      emit(jctx, new BackoffEvent.StoppedDuringBackoff(jctx.getSelf(), restarts, dropped));
    }
  }

  // ---------------------------------------------------------------- helpers

  private void stashOrDrop(TypedActorContext<Object> ctx, Object item) {
    if (stash.size() < policy.getStashCapacity()) {
      stash.add(item);
    } else {
      publishDropped(ctx, item, "stash of the backoff supervisor is full (capacity "
          + policy.getStashCapacity() + ")");
    }
  }

  private int dropStash(TypedActorContext<Object> ctx, String reason) {
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

  private static void publishDropped(TypedActorContext<Object> ctx, Object item, String reason) {
    Object payload = item instanceof StashedSignal ? ((StashedSignal) item).signal : item;
    ActorContext<Object> jctx = ctx.asJava();
    jctx.getSystem().eventStream().tell(new EventStream.Publish<>(
        new Dropped(payload, reason, org.apache.pekko.actor.ActorRef.noSender(), Adapter.toClassic(jctx.getSelf()))));
  }

  /** Cancels the user's timers (as Pekko's supervisor does) and our own. */
  private void cancelAllTimers(TypedActorContext<Object> ctx) {
    // Pekko's own RestartSupervisor does the same; there is no public API to cancel another
    // behavior's TimerScheduler timers, and this one is a no-op for actors that never used timers.
    ctx.asScala().cancelAllTimers();
    cancelOwnTimers();
  }

  private void cancelOwnTimers() {
    generation++; // makes any tick already in the mailbox stale
    if (restartTimer != null) {
      restartTimer.cancel();
      restartTimer = null;
    }
    if (resetTimer != null) {
      resetTimer.cancel();
      resetTimer = null;
    }
  }

  private SplittableRandom random(ActorContext<Object> jctx) {
    if (random == null) {
      long seed;
      if (policy.getRandomSeed().isPresent()) {
        seed = policy.getRandomSeed().getAsLong() ^ pathHash(jctx.getSelf().path().toStringWithoutAddress());
      } else {
        seed = ThreadLocalRandom.current().nextLong();
      }
      random = new SplittableRandom(seed);
    }
    return random;
  }

  /** A 64-bit FNV-1a hash, so that paths differing in one character give unrelated seeds. */
  static long pathHash(String path) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < path.length(); i++) {
      h ^= path.charAt(i);
      h *= 0x100000001b3L;
    }
    return h;
  }

  private void logFailure(ActorContext<Object> jctx, Throwable failure, Duration delay) {
    if (!policy.isLoggingEnabled()) {
      return;
    }
    Level level = restarts > policy.getCriticalLogLevelAfter() ? policy.getCriticalLogLevel() : policy.getLogLevel();
    log(jctx, level, failure, "Supervised actor [{}] failed (attempt {}), restarting in {} ms: {}",
        jctx.getSelf().path(), restarts, delay.toMillis(), failure.toString());
  }

  private static void log(ActorContext<Object> jctx, Level level, Throwable cause, String format, Object... args) {
    if (!LOG.isEnabledForLevel(level)) {
      return;
    }
    String previous = MDC.get("pekkoSource");
    MDC.put("pekkoSource", jctx.getSelf().path().toString());
    try {
      LOG.atLevel(level).setCause(cause).log(format, args);
    } finally {
      if (previous == null) {
        MDC.remove("pekkoSource");
      } else {
        MDC.put("pekkoSource", previous);
      }
    }
  }

  private void emit(ActorContext<Object> jctx, BackoffEvent event) {
    for (BackoffListener listener : policy.getListeners()) {
      try {
        listener.onEvent(event);
      } catch (Throwable t) {
        if (!NonFatal.apply(t)) {
          throw sneaky(t);
        }
        log(jctx, Level.WARN, t, "BackoffListener [{}] threw on {}; ignored", listener, event);
      }
    }
    if (policy.isEventStreamPublishing()) {
      jctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> TypedActorContext<T> narrow(TypedActorContext<Object> ctx) {
    return (TypedActorContext<T>) (TypedActorContext<?>) ctx;
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  @Override
  public String toString() {
    return "BackoffSupervisor(" + policy + ")";
  }
}
