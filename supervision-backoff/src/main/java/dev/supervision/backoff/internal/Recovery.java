package dev.supervision.backoff.internal;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.internal.policy.DelaySchedule;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * INTERNAL API: what one actor's supervisor ({@link BackoffBehavior}) holds from a failure until
 * its backoff resets: the restart count, the delay schedule and its random, the pending timer, the
 * stash, the children being stopped, the budget's gate and the handler's countdown. Created at the
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
   * The restart and reset timers' message and a budget's permit. A {@link Signal}, as in Pekko's
   * supervisor, so that a stale one reaching a user behavior is an unhandled signal.
   *
   * @param recovery whose timer or request it answers
   * @param generation the generation it was sent in
   * @param kind what it is due for
   */
  record Due(Recovery recovery, long generation, Kind kind)
      implements Signal, DeadLetterSuppression {

    /** Whether its timer or request was cancelled since it was sent: nobody takes it. */
    boolean isStale() {
      return generation != recovery.generation;
    }
  }

  /**
   * A signal kept in the stash, told apart from messages.
   *
   * @param signal the signal
   */
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
   *
   * @param kind what it is due for
   * @return the signal to schedule or to hand to the gate
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

  /** Cancels the countdown, if one runs. */
  void stopCountdown() {
    if (countdown != null) {
      countdown.cancel();
      countdown = null;
    }
  }

  /**
   * What the actor keeps after its backoff reset: nothing (a million-cell crash storm left 92 MiB
   * behind when this state was kept), or, with a seeded random, this recovery with its count at 0
   * and its random, whose sequence continues. Cancels the timers either way.
   *
   * @param policy the policy
   * @return the recovery to keep, or null
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
