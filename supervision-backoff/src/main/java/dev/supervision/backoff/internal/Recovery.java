package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.RestartBudget;
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
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.event.Level;

/**
 * INTERNAL API: what one actor's supervisor ({@link BackoffBehavior}) holds from a failure until
 * its backoff resets, and the bookkeeping of that episode: the restart count, the delay schedule
 * and its random, the pending timer, the stash, the children being stopped, the budget's gate and
 * the handler's countdown. It decides nothing about the child (the supervisor does). Created at the
 * first failure and released at the reset, so that an actor that never failed, or has recovered,
 * holds none of it (with a seeded random the recovery is kept with its count at 0, so that the
 * random sequence continues). Confined to the actor: nothing here is synchronized.
 *
 * <p>Its timers and budget requests send {@link Due} signals that name it and a generation. A
 * {@code Due} whose generation has moved on is stale (its timer was cancelled after it was
 * enqueued), whoever receives it; a live one belongs to the layer that holds this recovery, which
 * after a re-wrap is the layer that took it over, so that the hand-over needs no renaming.
 */
final class Recovery {

  /** What a {@link Due} signal is due for: the restart, the reset, or a budget's permit. */
  enum Kind {
    RESTART,
    RESET,
    PERMIT
  }

  /**
   * The restart and reset ticks and a budget's permit, naming the recovery and the generation they
   * were sent in. A {@link Signal}, as in Pekko's supervisor, so that a stale one reaching a user
   * behavior is an unhandled signal.
   */
  record Due(Recovery recovery, long generation, Kind kind)
      implements Signal, DeadLetterSuppression {

    /** Whether its timer or request was cancelled since it was sent: nobody takes it. */
    boolean isStale() {
      return generation != recovery.generation;
    }
  }

  /** A signal kept in the stash, told apart from messages. */
  record StashedSignal(Signal signal) {}

  int restarts; // since the last reset

  /** Moves on with every timer scheduled or cancelled, which makes every older {@link Due} stale. */
  private long generation;

  boolean inBackoff; // the child is down: messages and signals are stashed
  boolean restartDue; // the delay has passed: the restart waits for stopped children or a permit
  boolean permitRequested; // the actor waits in its budget's queue
  DelaySchedule schedule; // the delays of this episode; null until the first
  private SplittableRandom random;
  ArrayDeque<Object> stash; // kept for the restarted child; null when nothing is kept
  Set<ActorRef<Void>> stoppingChildren; // whose Terminated the restart waits for
  Cancellable timer; // the pending restart tick (in a backoff) or reset tick (after it): never both
  GateRegistry.Handle gate; // the budget's gate, once needed; again if the registry forgot it
  Countdown countdown; // the time left, for a policy with a handler while backing off; else null

  /**
   * The signal of a timer or request: a restart or reset tick makes every older one stale; a
   * permit is due in the current generation, so that a cancelled timer makes it stale too.
   */
  Due due(Kind kind) {
    return new Due(this, kind == Kind.PERMIT ? generation : ++generation, kind);
  }

  /** Cancels the timer and the countdown; makes every {@link Due} sent so far stale. */
  void cancelTimers() {
    generation++;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    stopCountdown();
  }

  private void stopCountdown() {
    if (countdown != null) {
      countdown.cancel();
      countdown = null;
    }
  }

  /**
   * A backoff starts (the failed child has had its {@code PreRestart}): stops the children if the
   * policy says so (the restart waits for their {@code Terminated}), counts the restart and
   * schedules its tick. A stop of the child ({@code stop}) takes no {@link RetryAfter} hint.
   */
  void beginBackoff(ActorContext<?> jctx, BackoffPolicy policy, Throwable failure, boolean stop) {
    if (policy.isStopChildren()) {
      stopChildren(jctx);
    }
    restarts++;
    long delayNanos = nextDelay(jctx, policy);
    if (!stop) {
      delayNanos = withRetryAfter(jctx, policy, delayNanos, failure);
    }
    Duration delay = Duration.ofNanos(delayNanos);
    inBackoff = true;
    restartDue = false;
    if (stash == null) {
      stash = new ArrayDeque<>(Math.min(16, Math.max(1, stashCapacity(jctx, policy))));
    }
    timer = jctx.scheduleOnce(delay, self(jctx), due(Kind.RESTART));
    if (policy.getHandlerWhileBackingOff().isPresent()) {
      countdown = Countdown.start(jctx, delayNanos); // the time left, for the handler
    }
    SupervisorReports.restartScheduled(policy, jctx, restarts, failure, stop, delay);
  }

  /** The child has been restarted: the backoff ends, the reset tick is scheduled. */
  void restarted(ActorContext<?> jctx, BackoffPolicy policy) {
    inBackoff = false;
    restartDue = false;
    stoppingChildren = null; // empty by now; released like the stash
    timer =
        policy.isManualReset()
            ? null // only the child resets the count
            : jctx.scheduleOnce(policy.getResetAfter(), self(jctx), due(Kind.RESET));
    SupervisorReports.restarted(policy, jctx, restarts);
  }

  /**
   * The time left until the restart, for the handler; minBackoff once the delay has passed (the
   * restart then waits for children or a permit, whose arrival nobody knows).
   */
  Duration untilRestart(BackoffPolicy policy) {
    return restartDue || countdown == null ? policy.getMinBackoff() : countdown.untilRestart();
  }

  /** The supervisor gives up: the stash goes to dead letters, the actor stops. */
  void gaveUp(
      ActorContext<?> jctx,
      BackoffPolicy policy,
      Throwable failure,
      BackoffEvent.Reason reason,
      boolean stop) {
    inBackoff = false;
    dropStash(jctx, "actor stopped by its backoff supervisor: " + reason);
    SupervisorReports.gaveUp(policy, jctx, restarts, failure, reason, stop);
  }

  /** The actor stopped during its backoff: it leaves the budget's queue, the stash is dropped. */
  void stoppedDuringBackoff(ActorContext<?> jctx, BackoffPolicy policy) {
    inBackoff = false;
    cancelTimers();
    cancelPermitRequest(jctx, policy);
    int dropped = dropStash(jctx, "actor stopped during its backoff");
    SupervisorReports.stoppedDuringBackoff(policy, jctx, restarts, dropped);
  }

  /** The next delay of the schedule; a broken user jitter gets one WARN line (see DelaySchedule). */
  private long nextDelay(ActorContext<?> jctx, BackoffPolicy policy) {
    if (schedule == null) {
      schedule =
          new DelaySchedule(
              policy.getMinBackoff(),
              policy.getMaxBackoff(),
              policy.getMultiplier(),
              policy.getJitter());
    }
    long delayNanos = schedule.nextDelayNanos(random(policy, jctx));
    DelaySchedule.BrokenJitter broken = schedule.takeBrokenJitter();
    if (broken != null) {
      SupervisorReports.log(
          policy,
          jctx,
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
  private static long withRetryAfter(
      ActorContext<?> jctx, BackoffPolicy policy, long delayNanos, Throwable failure) {
    for (Throwable t : Causes.chain(failure)) {
      if (!(t instanceof RetryAfter retryAfter)) {
        continue;
      }
      Duration hint;
      try {
        hint = retryAfter.retryAfter();
      } catch (Throwable broken) {
        Causes.rethrowIfFatal(broken);
        SupervisorReports.log(
            policy,
            jctx,
            Level.WARN,
            broken,
            "Supervised actor [{}]: the RetryAfter hint of {} threw {}; ignored, the policy's delay applies",
            t.getClass().getName(),
            Causes.describe(broken));
        continue;
      }
      if (hint != null && !hint.isNegative() && !hint.isZero()) {
        Duration max = policy.getMaxRetryAfter();
        return Math.max(delayNanos, (hint.compareTo(max) > 0 ? max : hint).toNanos());
      }
    }
    return delayNanos;
  }

  private void stopChildren(ActorContext<?> jctx) {
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

  /** The restart tick fired; returns whether the restart may go on (no child still stopping). */
  boolean delayPassed() {
    restartDue = true;
    timer = null;
    stopCountdown(); // nothing left to count
    return stoppingChildren == null || stoppingChildren.isEmpty();
  }

  /** Asks the budget for a permit: the actor waits in its queue for a {@link Kind#PERMIT}. */
  void askPermit(ActorContext<?> jctx, BackoffPolicy policy, RestartBudget budget) {
    permitRequested = true;
    gate(jctx, policy).tell(new GateProtocol.Acquire(self(jctx), due(Kind.PERMIT)));
    SupervisorReports.waitingForPermit(policy, jctx, restarts, budget.getName());
  }

  /** The budget granted the permit: the restart follows. */
  void permitGranted(ActorContext<?> jctx, BackoffPolicy policy, RestartBudget budget) {
    permitRequested = false;
    SupervisorReports.permitGranted(policy, jctx, restarts, budget.getName());
  }

  /** The budget's gate: the one looked up before, unless the registry forgot it since. */
  ActorRef<GateProtocol.Command> gate(ActorContext<?> jctx, BackoffPolicy policy) {
    if (gate == null || gate.isForgotten()) {
      gate = GateRegistry.get(jctx.getSystem()).handle(policy.getBudget().orElseThrow());
    }
    return gate.gate();
  }

  /** Leaves the budget's queue, if the actor waits in it. */
  void cancelPermitRequest(ActorContext<?> jctx, BackoffPolicy policy) {
    if (permitRequested) {
      permitRequested = false;
      gate(jctx, policy).tell(new GateProtocol.Cancel(self(jctx)));
    }
  }

  // ---------------------------------------------------------------- the stash

  /** Stashes {@code item}, or publishes it as {@link Dropped} if the stash is full. */
  void stashOrDrop(ActorContext<?> jctx, BackoffPolicy policy, Object item) {
    int capacity = stashCapacity(jctx, policy);
    if (stash.size() < capacity) {
      stash.add(item);
    } else {
      publishDropped(
          jctx, item, "stash of the backoff supervisor is full (capacity " + capacity + ")");
    }
  }

  /**
   * The policy's stash capacity, else the actor system's {@code
   * pekko.actor.typed.restart-stash-capacity} (as Pekko's own supervisor does; 1000 by default).
   */
  private static int stashCapacity(ActorContext<?> jctx, BackoffPolicy policy) {
    OptionalInt set = policy.getStashCapacitySetting();
    return set.isPresent() ? set.getAsInt() : jctx.getSystem().settings().RestartStashCapacity();
  }

  /** Takes the stash out, to replay it: an actor that stays healthy keeps none. */
  ArrayDeque<Object> takeStash() {
    ArrayDeque<Object> pending = stash;
    stash = null;
    return pending;
  }

  /** Publishes the stash as {@link Dropped} and releases it; returns how many were dropped. */
  int dropStash(ActorContext<?> jctx, String reason) {
    return drop(jctx, takeStash(), reason);
  }

  static int drop(ActorContext<?> jctx, ArrayDeque<Object> items, String reason) {
    if (items == null) {
      return 0;
    }
    for (Object item : items) {
      publishDropped(jctx, item, reason);
    }
    return items.size();
  }

  private static void publishDropped(ActorContext<?> jctx, Object item, String reason) {
    publish(
        jctx,
        new Dropped(
            item instanceof StashedSignal s ? s.signal() : item,
            reason,
            org.apache.pekko.actor.ActorRef.noSender(),
            Adapter.toClassic(jctx.getSelf())));
  }

  /** Publishes a replayed message the child left unhandled, as the actor does for a message. */
  static void publishUnhandled(ActorContext<?> jctx, Object message) {
    publish(
        jctx,
        new UnhandledMessage(
            message,
            org.apache.pekko.actor.ActorRef.noSender(),
            Adapter.toClassic(jctx.getSelf())));
  }

  private static void publish(ActorContext<?> jctx, Object event) {
    jctx.getSystem().eventStream().tell(new EventStream.Publish<>(event));
  }

  /** The actor's own ref, for the ticks and permits (signals, delivered as such by the actor). */
  @SuppressWarnings("unchecked")
  static ActorRef<Object> self(ActorContext<?> jctx) {
    return (ActorRef<Object>) (ActorRef<?>) jctx.getSelf();
  }

  /**
   * What the actor keeps after its backoff reset: nothing (a million-cell crash storm left 92 MiB
   * behind when this state was kept), or, with a seeded random, this recovery with its count at 0
   * and its random, whose sequence continues. Cancels the timers either way.
   */
  Recovery afterReset(BackoffPolicy policy) {
    cancelTimers();
    if (policy.getRandomSeed().isEmpty()) {
      return null;
    }
    restarts = 0;
    schedule = null; // a fresh schedule starts at attempt 0, exactly like a reset one
    gate = null;
    return this;
  }

  /**
   * The random of the delays: the policy's seed mixed with the actor's path (so that actors of one
   * seeded policy draw different sequences), else a fresh seed.
   */
  SplittableRandom random(BackoffPolicy policy, ActorContext<?> jctx) {
    if (random == null) {
      random =
          new SplittableRandom(
              policy.getRandomSeed().isPresent()
                  ? policy.getRandomSeed().getAsLong()
                      ^ pathHash(jctx.getSelf().path().toStringWithoutAddress())
                  : ThreadLocalRandom.current().nextLong());
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
}
