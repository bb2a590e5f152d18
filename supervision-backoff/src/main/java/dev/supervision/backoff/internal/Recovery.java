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
 * INTERNAL API: a supervisor's state from a failure until the reset, and its bookkeeping; it
 * decides nothing about the child. Released at the reset (kept, count 0, with a seeded random so
 * that its sequence continues), so an actor that never failed or has recovered holds none of it.
 *
 * <p>Its timers and permits are {@link Due} signals naming it and a generation: a moved-on
 * generation makes one stale whoever gets it; a live one belongs to whichever layer holds this
 * recovery, so that a re-wrap's hand-over needs no renaming.
 */
final class Recovery {

  enum Kind {
    RESTART,
    RESET,
    PERMIT
  }

  /** A signal, as in Pekko's supervisor, so that one reaching a user behavior is unhandled. */
  record Due(Recovery recovery, long generation, Kind kind)
      implements Signal, DeadLetterSuppression {

    boolean isStale() {
      return generation != recovery.generation;
    }
  }

  record StashedSignal(Signal signal) {}

  int restarts; // since the last reset
  private long generation; // moves on with every timer scheduled or cancelled
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

  /** A tick makes every older Due stale; a permit takes the current generation. */
  Due due(Kind kind) {
    return new Due(this, kind == Kind.PERMIT ? generation : ++generation, kind);
  }

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

  /** After the failed child's {@code PreRestart}; a {@code stop} takes no RetryAfter hint. */
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

  /** minBackoff once the delay passed: the restart then waits for children or a permit. */
  Duration untilRestart(BackoffPolicy policy) {
    return restartDue || countdown == null ? policy.getMinBackoff() : countdown.untilRestart();
  }

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

  void stoppedDuringBackoff(ActorContext<?> jctx, BackoffPolicy policy) {
    inBackoff = false;
    cancelTimers();
    cancelPermitRequest(jctx, policy);
    int dropped = dropStash(jctx, "actor stopped during its backoff");
    SupervisorReports.stoppedDuringBackoff(policy, jctx, restarts, dropped);
  }

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

  /** Lengthened to the first usable RetryAfter hint of the cause chain; a broken hint is skipped. */
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

  /** Whether the restart may go on: no child still stopping. */
  boolean delayPassed() {
    restartDue = true;
    timer = null;
    stopCountdown(); // nothing left to count
    return stoppingChildren == null || stoppingChildren.isEmpty();
  }

  void askPermit(ActorContext<?> jctx, BackoffPolicy policy, RestartBudget budget) {
    permitRequested = true;
    gate(jctx, policy).tell(new GateProtocol.Acquire(self(jctx), due(Kind.PERMIT)));
    SupervisorReports.waitingForPermit(policy, jctx, restarts, budget.getName());
  }

  void permitGranted(ActorContext<?> jctx, BackoffPolicy policy, RestartBudget budget) {
    permitRequested = false;
    SupervisorReports.permitGranted(policy, jctx, restarts, budget.getName());
  }

  ActorRef<GateProtocol.Command> gate(ActorContext<?> jctx, BackoffPolicy policy) {
    if (gate == null || gate.isForgotten()) {
      gate = GateRegistry.get(jctx.getSystem()).handle(policy.getBudget().orElseThrow());
    }
    return gate.gate();
  }

  void cancelPermitRequest(ActorContext<?> jctx, BackoffPolicy policy) {
    if (permitRequested) {
      permitRequested = false;
      gate(jctx, policy).tell(new GateProtocol.Cancel(self(jctx)));
    }
  }

  void stashOrDrop(ActorContext<?> jctx, BackoffPolicy policy, Object item) {
    int capacity = stashCapacity(jctx, policy);
    if (stash.size() < capacity) {
      stash.add(item);
    } else {
      publishDropped(
          jctx, item, "stash of the backoff supervisor is full (capacity " + capacity + ")");
    }
  }

  /** Else the system's {@code restart-stash-capacity}, as Pekko's own supervisor does. */
  private static int stashCapacity(ActorContext<?> jctx, BackoffPolicy policy) {
    OptionalInt set = policy.getStashCapacitySetting();
    return set.isPresent() ? set.getAsInt() : jctx.getSystem().settings().RestartStashCapacity();
  }

  ArrayDeque<Object> takeStash() {
    ArrayDeque<Object> pending = stash;
    stash = null;
    return pending;
  }

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

  @SuppressWarnings("unchecked")
  static ActorRef<Object> self(ActorContext<?> jctx) {
    return (ActorRef<Object>) (ActorRef<?>) jctx.getSelf();
  }

  /** Nothing (kept, a million-actor crash storm left 92 MiB), unless the random is seeded. */
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

  /** The seed is mixed with the actor's path, so that actors of one policy draw differently. */
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

  /** FNV-1a: paths differing in one character give unrelated seeds. */
  static long pathHash(String path) {
    long hash = 0xcbf29ce484222325L;
    for (int i = 0; i < path.length(); i++) {
      hash ^= path.charAt(i);
      hash *= 0x100000001b3L;
    }
    return hash;
  }
}
