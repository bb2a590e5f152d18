package dev.supervision.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A limit on how fast a whole group of actors may restart: at most {@link #getPermits()} restarts
 * per {@link #getPeriod()}, across every supervised actor whose policy names this budget (see
 * {@link BackoffPolicy#withBudget(RestartBudget)}). An immutable, validated value.
 *
 * <p>Jitter spreads restarts, but their peak still grows with the number of actors. A budget gives a
 * hard guarantee: however many actors fail, the group restarts no faster than the shared resource
 * can take. When an actor's backoff delay has passed, it asks the budget for a permit and restarts
 * only when it gets one. Waiting actors are served first come, first served; an actor stopped while
 * it waits gives up its place.
 *
 * <p>The budget is a token bucket. It starts full with {@link #getBurst()} permits and is refilled
 * at {@code permits / period}, continuously, up to {@code burst}: its permits are paced, one every
 * {@code period / permits}, so in any interval {@code d} at most {@code burst + rate * (d + tick)}
 * restarts are granted, where {@code tick} is the scheduler's resolution ({@code
 * pekko.scheduler.tick-duration}, 10 ms by default; set it to 1 ms behind a rate limiter that allows
 * no burst). The gate's clock is a fixed-rate timer, so the rate holds against the scheduler's
 * clock; after a stall of the scheduler or the gate, the missed ticks are caught up at once. The
 * default burst is {@code max(1, permits / 10)}.
 *
 * <p>Budgets are identified by {@link #getName()} within one {@code ActorSystem}: all actors of a
 * system whose policies name the same budget share one gate actor (owned by the {@link
 * RestartBudgets} extension), with no wiring by the user. Two budgets with the same name and
 * different limits in one system are an error, reported when the second actor starts.
 *
 * <p>An <em>adaptive</em> budget ({@link #adaptive(String)}) has no fixed rate: it learns the rate the
 * shared resource can take from the outcomes of the restarts it grants. A restart whose actor fails
 * again within the probation ({@link #withProbation(Duration)}, default 100 ms) is a failure, one
 * that survives it a success; failures that the policy calls permanent are not counted. While the
 * group keeps failing it holds restarts back, letting one probe through now and then; when a probe
 * survives it opens with slow start, cuts its rate to the measured goodput when restarts fail again,
 * and grows carefully after. {@link #withMaxRate(int, Duration)} sets an optional ceiling. See
 * {@link dev.supervision.backoff.spi.AdaptiveRateController} for the state machine.
 */
public final class RestartBudget {

  private static final Duration MIN_SLICE = Duration.ofMillis(10);

  private final String name;
  private final int permits;
  private final Duration period;
  private final int burst;
  private final boolean clusterWide;
  private final Adaptive adaptive;

  /** The settings of an adaptive budget; null for a fixed one. */
  private record Adaptive(Duration probation, boolean ceiling, double initialRate, int holdAfter) {}

  private static final Duration DEFAULT_PROBATION = Duration.ofMillis(100);
  private static final double DEFAULT_INITIAL_RATE = 100;
  private static final int DEFAULT_HOLD_AFTER = 10;

  private RestartBudget(String name, int permits, Duration period, int burst, boolean clusterWide) {
    this(name, permits, period, burst, clusterWide, null);
  }

  private RestartBudget(
      String name,
      int permits,
      Duration period,
      int burst,
      boolean clusterWide,
      Adaptive adaptive) {
    this.name = name;
    this.permits = permits;
    this.period = period;
    this.burst = burst;
    this.clusterWide = clusterWide;
    this.adaptive = adaptive;
  }

  /**
   * An adaptive budget: no fixed rate; it learns the rate from the outcomes of the restarts it
   * grants (see the class documentation). Defaults: probation 100 ms, no ceiling, ramping starts at
   * 100 restarts per second, holding starts after 10 failures within one second.
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @return a new budget
   * @throws NullPointerException if {@code name} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static RestartBudget adaptive(String name) {
    Require.nonNull(name, "name");
    Require.argument(!name.isBlank(), "name", "non-blank", "\"" + name + "\"");
    return new RestartBudget(
        name,
        Integer.MAX_VALUE,
        Duration.ofSeconds(1),
        1,
        false,
        new Adaptive(DEFAULT_PROBATION, false, DEFAULT_INITIAL_RATE, DEFAULT_HOLD_AFTER));
  }

  /**
   * Sets how long a restarted actor must run without failing for its restart to count as a success
   * (adaptive budgets only). It is counted in slices of 100 ms, rounded up.
   *
   * @param probation {@code >= 1 ms} and {@code <= 1 min}; default 100 ms
   * @return a new budget
   * @throws NullPointerException if {@code probation} is null
   * @throws IllegalArgumentException if it is out of range
   * @throws IllegalStateException if this budget is not adaptive
   */
  public RestartBudget withProbation(Duration probation) {
    requireAdaptive("probation");
    Require.positive(probation, "probation");
    Require.argument(
        probation.compareTo(Duration.ofMillis(1)) >= 0
            && probation.compareTo(Duration.ofMinutes(1)) <= 0,
        "probation",
        "between 1 ms and 1 min",
        probation);
    return new RestartBudget(
        name,
        permits,
        period,
        burst,
        clusterWide,
        new Adaptive(probation, adaptive.ceiling(), adaptive.initialRate(), adaptive.holdAfter()));
  }

  /**
   * Sets a ceiling on an adaptive budget: whatever it learns, it grants at most {@code permits} per
   * {@code period} (a fixed budget's limit). The burst becomes {@code max(1, permits / 10)}.
   *
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if a value is out of range
   * @throws IllegalStateException if this budget is not adaptive
   */
  public RestartBudget withMaxRate(int permits, Duration period) {
    requireAdaptive("maxRate");
    Require.argument(permits >= 1, "permits", ">= 1", permits);
    Require.positive(period, "period");
    Require.argument(period.compareTo(MIN_SLICE) >= 0, "period", ">= " + MIN_SLICE, period);
    return new RestartBudget(
        name,
        permits,
        period,
        Math.max(1, permits / 10),
        clusterWide,
        new Adaptive(adaptive.probation(), true, adaptive.initialRate(), adaptive.holdAfter()));
  }

  /**
   * Sets the rate an adaptive budget starts ramping at when a probe has survived; each time every
   * restart of a slice fails and the budget holds again, the next start is halved (not below 5 per
   * second).
   *
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws IllegalArgumentException if a value is out of range
   * @throws IllegalStateException if this budget is not adaptive
   */
  public RestartBudget withInitialRate(int permits, Duration period) {
    requireAdaptive("initialRate");
    Require.argument(permits >= 1, "permits", ">= 1", permits);
    Require.positive(period, "period");
    Require.argument(period.compareTo(MIN_SLICE) >= 0, "period", ">= " + MIN_SLICE, period);
    double rate = permits / (period.toNanos() / 1e9);
    Require.argument(rate >= 5, "initialRate", ">= 5 per second", rate + " per second");
    return new RestartBudget(
        name,
        this.permits,
        this.period,
        burst,
        clusterWide,
        new Adaptive(adaptive.probation(), adaptive.ceiling(), rate, adaptive.holdAfter()));
  }

  /**
   * Sets how many failures of the group within one second make an adaptive budget hold restarts
   * back (while nothing is wrong, restarts pass at once).
   *
   * @param failures {@code >= 1}; default 10
   * @return a new budget
   * @throws IllegalArgumentException if {@code failures < 1}
   * @throws IllegalStateException if this budget is not adaptive
   */
  public RestartBudget withHoldAfter(int failures) {
    requireAdaptive("holdAfter");
    Require.argument(failures >= 1, "holdAfter", ">= 1", failures);
    return new RestartBudget(
        name,
        permits,
        period,
        burst,
        clusterWide,
        new Adaptive(adaptive.probation(), adaptive.ceiling(), adaptive.initialRate(), failures));
  }

  private void requireAdaptive(String setting) {
    if (adaptive == null) {
      throw new IllegalStateException(
          setting
              + " applies to adaptive budgets only, but "
              + name
              + " is a fixed budget of "
              + permits
              + " per "
              + period);
    }
  }

  /**
   * Whether this budget learns its rate (see {@link #adaptive(String)}).
   *
   * @return {@code true} for an adaptive budget
   */
  public boolean isAdaptive() {
    return adaptive != null;
  }

  /**
   * Whether an adaptive budget has a ceiling ({@link #withMaxRate(int, Duration)}); always {@code
   * true} for a fixed budget, whose limit is its ceiling.
   *
   * @return {@code true} if {@link #getPermits()} per {@link #getPeriod()} limits the rate
   */
  public boolean hasMaxRate() {
    return adaptive == null || adaptive.ceiling();
  }

  /**
   * The probation of an adaptive budget.
   *
   * @return the probation; empty for a fixed budget
   */
  public Optional<Duration> getProbation() {
    return adaptive == null ? Optional.empty() : Optional.of(adaptive.probation());
  }

  /**
   * The rate an adaptive budget starts ramping at, restarts per second; 0 for a fixed budget.
   *
   * @return the initial rate
   */
  public double getInitialRate() {
    return adaptive == null ? 0 : adaptive.initialRate();
  }

  /**
   * The failures within one second that make an adaptive budget hold; 0 for a fixed budget.
   *
   * @return the threshold
   */
  public int getHoldAfter() {
    return adaptive == null ? 0 : adaptive.holdAfter();
  }

  /**
   * A budget of {@code permits} restarts per {@code period}, with the default burst.
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code name} or {@code period} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank, {@code permits < 1} or the period is
   *     out of range
   */
  public static RestartBudget of(String name, int permits, Duration period) {
    Require.nonNull(name, "name");
    Require.argument(!name.isBlank(), "name", "non-blank", "\"" + name + "\"");
    Require.argument(permits >= 1, "permits", ">= 1", permits);
    Require.positive(period, "period");
    Require.argument(period.compareTo(MIN_SLICE) >= 0, "period", ">= " + MIN_SLICE, period);
    return new RestartBudget(name, permits, period, Math.max(1, permits / 10), false);
  }

  /**
   * Sets how many permits the budget holds when it is full, that is how many restarts may happen at
   * once after a quiet period. For fixed budgets only: an {@linkplain #adaptive(String) adaptive}
   * budget paces its permits at the rate its controller allows (under a {@linkplain
   * #withMaxRate(int, Duration) ceiling}, at most one tick of it ahead) and ignores this setting, so that one
   * {@code supervision-backoff.default-budget} block can serve budgets of both modes.
   *
   * @param burst {@code >= 1}
   * @return a new budget
   * @throws IllegalArgumentException if {@code burst < 1}
   */
  public RestartBudget withBurst(int burst) {
    Require.argument(burst >= 1, "burst", ">= 1", burst);
    return new RestartBudget(name, permits, period, burst, clusterWide, adaptive);
  }

  /**
   * Makes the limit hold for the sum of restarts on all nodes of a Pekko Cluster, instead of per
   * actor system. Each node enforces its share, {@code 1/N} of the permits and of the burst (at least
   * one permit of capacity), where {@code N} is the number of cluster members that may be running
   * supervised actors (every member from joining until it is removed, reachable or not, and at least
   * this node), and adjusts it as members come and go. Needs the {@code supervision-backoff-cluster} module on the classpath (found
   * with {@link java.util.ServiceLoader}); without it, an actor using the budget fails to start with
   * a message saying so.
   *
   * @return a new, cluster-wide budget
   */
  public RestartBudget clusterWide() {
    return new RestartBudget(name, permits, period, burst, true, adaptive);
  }

  /**
   * Whether the limit holds across a cluster rather than per actor system.
   *
   * @return {@code true} for a cluster-wide budget
   */
  public boolean isClusterWide() {
    return clusterWide;
  }

  /**
   * The name that identifies the budget within an actor system.
   *
   * @return the name
   */
  public String getName() {
    return name;
  }

  /**
   * Restarts granted per period (for an adaptive budget: its ceiling, {@link Integer#MAX_VALUE} per
   * second if it has none).
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
   * The size of the bucket.
   *
   * @return the burst
   */
  public int getBurst() {
    return burst;
  }

  /**
   * Whether two budgets have the same limits (permits, period, burst and scope), whatever their names.
   *
   * @param other another budget
   * @return {@code true} if the limits are equal
   */
  public boolean sameLimitsAs(RestartBudget other) {
    return permits == other.permits
        && burst == other.burst
        && period.equals(other.period)
        && clusterWide == other.clusterWide
        && Objects.equals(adaptive, other.adaptive);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RestartBudget
        && ((RestartBudget) o).name.equals(name)
        && sameLimitsAs((RestartBudget) o);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, permits, period, burst, clusterWide, adaptive);
  }

  @Override
  public String toString() {
    String limits =
        adaptive == null
            ? "permits=" + permits + ", period=" + period + ", burst=" + burst
            : "adaptive, probation="
                + adaptive.probation()
                + ", initialRate="
                + adaptive.initialRate()
                + "/s, holdAfter="
                + adaptive.holdAfter()
                + (adaptive.ceiling()
                    ? ", maxRate=" + permits + " per " + period + ", burst=" + burst
                    : "");
    return "RestartBudget{name="
        + name
        + ", "
        + limits
        + (clusterWide ? ", cluster-wide" : "")
        + "}";
  }
}
