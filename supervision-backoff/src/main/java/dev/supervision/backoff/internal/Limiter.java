package dev.supervision.backoff.internal;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.Optional;

/**
 * INTERNAL API: what decides, for a {@link BudgetGate}, when a permit may go: one implementation per
 * kind of budget ({@link FixedLimiter} around a token bucket's pacer, {@link AdaptiveLimiter} around
 * an {@link AdaptiveRateController}, {@link LeasedLimiter} within a cluster learner's leases). The
 * gate keeps the queue, the clock and the grants; the limiter keeps the arithmetic. What a kind has
 * no use for does nothing by default: a fixed budget learns nothing, an adaptive one takes no permit
 * back (its controller counted the grant). Every {@code now} is the gate's time in nanoseconds; not
 * thread-safe (the gate's actor owns it).
 */
interface Limiter {

  /**
   * How long the gate remembers a grant whose actor has not reported its start: a permit may come
   * back unused within it, and a start reported within it counts.
   */
  long keepUnstartedNanos();

  /**
   * How long the gate remembers a grant after its actor started, for the failures it reports; as
   * long as {@link #keepUnstartedNanos} unless the kind says otherwise.
   */
  default long keepStartedNanos() {
    return keepUnstartedNanos();
  }

  /** A tick of the gate's clock, with {@code waiting} actors in its queue. */
  default void onTick(long now, int waiting) {}

  /** Takes a permit now, if one may go. */
  boolean tryAcquire(long now);

  /**
   * The most permits the gate may let go between two firings of its release timer: what its pacer
   * may give in two ticks ({@link dev.supervision.backoff.rate.Pacer#maxIn maxIn(2 ticks)}). While
   * the timers run on time there are at most two ticks between two releases, so the limit never
   * binds; after a stall it bounds what the ticks that come back to back may release. At least 1;
   * {@code Long.MAX_VALUE} for no limit.
   */
  long perRelease();

  /**
   * The gate could not pass on the permits available now (it has let {@link #perRelease} go since
   * its last release): an adaptive budget drops them (its rate is learnt, not owed), so that its
   * next permit goes one interval later; a fixed budget's rate is a promise over time, so it keeps
   * to its pacer's rule (asked late, the pacer starts again with its burst, as after an idle period).
   */
  default void drop(long now) {}

  /** The actor of a permit granted at {@code grantedAt} has started (adaptive budgets only). */
  default void onStarted(long now, long grantedAt) {}

  /** A permit it let through came back unused (its actor had stopped) and no actor waits for it. */
  default void giveBack(long now) {}

  /**
   * A supervised actor of the budget failed (not permanently); {@code startedAt} is when its last
   * granted restart started, or {@link AdaptiveRateController#NOT_GRANTED}.
   */
  default void onFailure(long now, long startedAt) {}

  /** The budget is shared by {@code members >= 1} nodes. */
  void setShare(int members);

  /** A lease from the learner of a cluster-wide adaptive budget; other limiters ignore it. */
  default void onLease(Lease lease, long now) {}

  /**
   * The last lease's validity passed with no newer lease (the gate's timer says so even while the
   * gate does not tick): a cluster-wide adaptive budget's limiter falls back on its own controller.
   */
  default void expireLease(long now) {}

  /** The report for the learner of a cluster-wide adaptive budget; empty for any other limiter. */
  default Optional<NodeReport> report(long now, int waiting) {
    return Optional.empty();
  }

  /**
   * Whether time passing changes nothing while no actor waits and no grant is remembered, so that
   * the gate may stop its timer.
   */
  boolean isIdle(long now);

  /** The state ({@link State#STEADY} for a fixed budget). */
  default State state() {
    return State.STEADY;
  }

  /** The permits per second allowed now ({@code +Infinity} for no limit, 0 while holding). */
  double rate();

  /** Where this node stands with the learner of a cluster-wide adaptive budget; else empty. */
  default Optional<GateProtocol.Coordination> coordination() {
    return Optional.empty();
  }

  /** The goodput measured at the last loss, per second; {@code NaN} if none (always when fixed). */
  default double goodput() {
    return Double.NaN;
  }
}
