package dev.supervision.backoff;

import java.time.Duration;
import java.util.Objects;

/**
 * A fixed {@link RestartBudget}: at most {@link #getPermits()} restarts per {@link #getPeriod()},
 * across every supervised actor whose policy names it. Made with {@link RestartBudget#of(String,
 * int, Duration)}; an immutable, validated value, safe to share between threads.
 *
 * <p>The budget is a token bucket. It starts full with {@link #getBurst()} permits and is refilled
 * at {@code permits / period}, continuously, up to {@code burst}: its permits are paced, one every
 * {@code period / permits}, so in any interval {@code d} at most {@code burst + rate * (d + tick)}
 * restarts are granted, where {@code tick} is the scheduler's resolution ({@code
 * pekko.scheduler.tick-duration}, 10 ms by default; set it to 1 ms behind a rate limiter that allows
 * no burst). The gate's clock is a fixed-rate timer, so the rate holds against the scheduler's
 * clock; after a stall of the scheduler or the gate, the missed ticks are caught up at once. The
 * default burst is {@code max(1, permits / 10)}.
 */
public final class FixedRestartBudget implements RestartBudget {

  private final String name;
  private final int permits;
  private final Duration period;
  private final int burst;
  private final boolean clusterWide;

  private FixedRestartBudget(
      String name, int permits, Duration period, int burst, boolean clusterWide) {
    this.name = name;
    this.permits = permits;
    this.period = period;
    this.burst = burst;
    this.clusterWide = clusterWide;
  }

  /** See {@link RestartBudget#of(String, int, Duration)}. */
  static FixedRestartBudget create(String name, int permits, Duration period) {
    BudgetRules.name(name);
    BudgetRules.rate(permits, period);
    return new FixedRestartBudget(name, permits, period, Math.max(1, permits / 10), false);
  }

  /**
   * Sets how many permits the budget holds when it is full, that is how many restarts may happen at
   * once after a quiet period.
   *
   * @param burst {@code >= 1}; default {@code max(1, permits / 10)}
   * @return a new budget
   * @throws IllegalArgumentException if {@code burst < 1}
   */
  public FixedRestartBudget withBurst(int burst) {
    Require.argument(burst >= 1, "burst", ">= 1", burst);
    return new FixedRestartBudget(name, permits, period, burst, clusterWide);
  }

  /**
   * Makes the limit hold for the sum of restarts on all nodes of a Pekko Cluster, instead of per
   * actor system. Each node enforces its share, {@code 1/N} of the permits and of the burst (at least
   * one permit of capacity), where {@code N} is the number of cluster members that may be running
   * supervised actors (every member from joining until it is removed, reachable or not, and at least
   * this node), and adjusts it as members come and go. Needs the {@code supervision-backoff-cluster}
   * module on the classpath.
   *
   * @return a new, cluster-wide budget
   */
  @Override
  public FixedRestartBudget clusterWide() {
    return new FixedRestartBudget(name, permits, period, burst, true);
  }

  @Override
  public boolean isClusterWide() {
    return clusterWide;
  }

  @Override
  public String getName() {
    return name;
  }

  /**
   * Restarts granted per period.
   *
   * @return the permits
   */
  public int getPermits() {
    return permits;
  }

  /**
   * The period over which {@link #getPermits()} are granted.
   *
   * @return the period
   */
  public Duration getPeriod() {
    return period;
  }

  /**
   * The size of the bucket: how many restarts may go at once after a quiet period.
   *
   * @return the burst
   */
  public int getBurst() {
    return burst;
  }

  /**
   * Whether {@code other} is a fixed budget with the same permits, period, burst and scope, whatever
   * its name.
   *
   * @param other another budget
   * @return {@code true} if the limits are equal
   * @throws NullPointerException if {@code other} is null
   */
  @Override
  public boolean sameLimitsAs(RestartBudget other) {
    return Objects.requireNonNull(other, "other") instanceof FixedRestartBudget f
        && permits == f.permits
        && burst == f.burst
        && period.equals(f.period)
        && clusterWide == f.clusterWide;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedRestartBudget f && f.name.equals(name) && sameLimitsAs(f);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, permits, period, burst, clusterWide);
  }

  @Override
  public String toString() {
    return "RestartBudget{name="
        + name
        + ", permits="
        + permits
        + ", period="
        + period
        + ", burst="
        + burst
        + (clusterWide ? ", cluster-wide" : "")
        + "}";
  }
}
