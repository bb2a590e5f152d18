package dev.supervision.backoff.internal;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.Optional;

/**
 * INTERNAL API: when a {@link BudgetGate} may let a permit go, one kind per budget kind; the gate
 * keeps the queue, clock and grants. Defaults do nothing. Every {@code now} is the gate's time.
 */
interface Limiter {

  /** How long an unstarted grant is remembered (for a permit back or a start). */
  long keepUnstartedNanos();

  /** How long a started grant is remembered, for its failures. */
  default long keepStartedNanos() {
    return keepUnstartedNanos();
  }

  default void onTick(long now, int waiting) {}

  boolean tryAcquire(long now);

  /** The most permits between two releases: the pacer's two ticks, so binding after a stall only. */
  long perRelease();

  /**
   * Past {@link #perRelease}: an adaptive budget drops what it offers (its rate is learnt, not
   * owed); a fixed one's rate is a promise, so it keeps to its pacer.
   */
  default void drop(long now) {}

  default void onStarted(long now, long grantedAt) {}

  /** A permit came back unused and no actor waits for it. */
  default void giveBack(long now) {}

  /** {@code startedAt}: of its last granted restart, or {@link AdaptiveRateController#NOT_GRANTED}. */
  default void onFailure(long now, long startedAt) {}

  void setShare(int members);

  default void onLease(Lease lease, long now) {}

  default void expireLease(long now) {}

  default Optional<NodeReport> report(long now, int waiting) {
    return Optional.empty();
  }

  /** Whether time passing changes nothing, so that an empty gate may stop its timers. */
  boolean isIdle(long now);

  default State state() {
    return State.STEADY;
  }

  /** Per second; {@code +Infinity} for no limit, 0 while holding. */
  double rate();

  default Optional<GateProtocol.Coordination> coordination() {
    return Optional.empty();
  }

  /** At the last loss, per second; {@code NaN} if none. */
  default double goodput() {
    return Double.NaN;
  }
}
