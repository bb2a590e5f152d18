package dev.supervision.backoff.internal;

import dev.supervision.backoff.AdaptiveRestartBudget;
import dev.supervision.backoff.FixedRestartBudget;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.AdaptiveRateController;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;

/**
 * INTERNAL API: what decides, for a {@link BudgetGate}, when a permit may go: one implementation per
 * kind of budget ({@link FixedLimiter} around a token bucket's pacer, {@link AdaptiveLimiter} around
 * an {@link AdaptiveRateController}). The gate keeps the queue, the clock and the grants; the limiter
 * keeps the arithmetic. Time is the gate's clock, in nanoseconds; not thread-safe (the gate's actor
 * owns it).
 */
interface Limiter {

  /**
   * The limiter of a budget.
   *
   * @param budget the budget
   * @param members how many nodes share it at the start, {@code >= 1}
   * @param tickNanos the gate's tick
   * @param listener told about an adaptive budget's state and rate changes and probes
   * @return a new limiter
   */
  static Limiter of(
      RestartBudget budget, int members, long tickNanos, AdaptiveRateController.Listener listener) {
    if (budget instanceof AdaptiveRestartBudget adaptive) {
      return new AdaptiveLimiter(adaptive, members, tickNanos, listener);
    }
    return new FixedLimiter((FixedRestartBudget) budget, members, tickNanos);
  }

  /**
   * How long the gate remembers a grant: a permit may come back unused within it, and an adaptive
   * budget's failure report counts against its grant within it.
   *
   * @return nanoseconds
   */
  long keepGrantsNanos();

  /**
   * A tick of the gate's clock.
   *
   * @param now the time now
   * @param waiting how many actors wait
   */
  void onTick(long now, int waiting);

  /**
   * Takes a permit now, if one may go.
   *
   * @param now the time now
   * @return whether a permit was taken
   */
  boolean tryAcquire(long now);

  /**
   * A permit it let through came back unused (its actor had stopped) and no actor waits for it.
   *
   * @param now the time now
   */
  void giveBack(long now);

  /**
   * A supervised actor of the budget failed (not permanently).
   *
   * @param now the time now
   * @param grantedAt when its last permit was granted, or {@link
   *     AdaptiveRateController#NOT_GRANTED}
   */
  void onFailure(long now, long grantedAt);

  /**
   * The budget is shared by {@code members} nodes.
   *
   * @param members {@code >= 1}
   */
  void setShare(int members);

  /**
   * What the cluster's coordination decided for this node.
   *
   * @param decision the decision
   * @param now the time now
   */
  void coordinate(ClusterCoordinator.Decision decision, long now);

  /**
   * Whether time passing changes nothing while no actor waits and no grant is remembered, so that
   * the gate may stop its timer.
   *
   * @param now the time now
   * @return {@code true} if idle
   */
  boolean isIdle(long now);

  /**
   * With no actor waiting, whether the gate may stop ticking (and keep its clock with its coarse
   * timer): nothing changes for an actor that comes within 100 ms but a slice start, so that the
   * coarse timer sees every change in time and a budget's rate is not lost to stopping and starting.
   *
   * @param now the time now
   * @return {@code true} if it may stop ticking
   */
  boolean mayStopTicking(long now);

  /**
   * The state ({@link State#STEADY} for a fixed budget).
   *
   * @return the state
   */
  State state();

  /**
   * The permits per second allowed now ({@code +Infinity} for no limit, 0 while holding).
   *
   * @return the rate
   */
  double rate();

  /**
   * The goodput measured at the last loss, per second; {@code NaN} if none (always for a fixed
   * budget).
   *
   * @return the goodput
   */
  double goodput();
}
