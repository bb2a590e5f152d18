package dev.supervision.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An adaptive {@link RestartBudget}: no fixed rate; it learns the rate the shared resource can take
 * from the outcomes of the restarts it grants. Made with {@link RestartBudget#adaptive(String)}; an
 * immutable, validated value, safe to share between threads.
 *
 * <p>A restart whose actor fails again within the probation ({@link #withProbation(Duration)},
 * default 100 ms, counted from the moment the restarted actor has started) is a failure, one that
 * survives it a success; a restart whose actor has not started yet is neither. Failures that the
 * policy calls permanent are not counted. While the group keeps failing it holds restarts back, letting one probe through now and then; when a probe
 * survives it opens with slow start, cuts its rate to the measured goodput when restarts fail again,
 * and grows carefully after. {@link #withMaxRate(int, Duration)} sets an optional ceiling. See
 * {@link dev.supervision.backoff.spi.AdaptiveRateController} for the state machine.
 */
public final class AdaptiveRestartBudget implements RestartBudget {

  private static final Duration DEFAULT_PROBATION = Duration.ofMillis(100);
  private static final double DEFAULT_INITIAL_RATE = 100;
  private static final int DEFAULT_HOLD_AFTER = 10;

  /**
   * An adaptive budget's ceiling: at most {@code permits} restarts per {@code period}.
   *
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   */
  public record MaxRate(int permits, Duration period) {

    /**
     * Checks the ceiling.
     *
     * @param permits restarts per period, {@code >= 1}
     * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
     * @throws NullPointerException if {@code period} is null
     * @throws IllegalArgumentException if a value is out of range
     */
    public MaxRate {
      BudgetRules.rate(permits, period);
    }

    @Override
    public String toString() {
      return permits + " per " + period;
    }
  }

  private final String name;
  private final Duration probation;
  private final double initialRate;
  private final int holdAfter;
  private final MaxRate maxRate; // null: no ceiling
  private final boolean clusterWide;

  private AdaptiveRestartBudget(
      String name,
      Duration probation,
      double initialRate,
      int holdAfter,
      MaxRate maxRate,
      boolean clusterWide) {
    this.name = name;
    this.probation = probation;
    this.initialRate = initialRate;
    this.holdAfter = holdAfter;
    this.maxRate = maxRate;
    this.clusterWide = clusterWide;
  }

  /** See {@link RestartBudget#adaptive(String)}. */
  static AdaptiveRestartBudget create(String name) {
    BudgetRules.name(name);
    return new AdaptiveRestartBudget(
        name, DEFAULT_PROBATION, DEFAULT_INITIAL_RATE, DEFAULT_HOLD_AFTER, null, false);
  }

  /**
   * Sets how long a restarted actor must run without failing for its restart to count as a success.
   * It is counted from the moment the restarted actor has started (its behavior is set up and has
   * handled the messages stashed during its backoff), in slices of 100 ms, rounded up.
   *
   * @param probation {@code >= 1 ms} and {@code <= 1 min}; default 100 ms
   * @return a new budget
   * @throws NullPointerException if {@code probation} is null
   * @throws IllegalArgumentException if it is out of range
   */
  public AdaptiveRestartBudget withProbation(Duration probation) {
    Require.positive(probation, "probation");
    Require.argument(
        probation.compareTo(Duration.ofMillis(1)) >= 0
            && probation.compareTo(Duration.ofMinutes(1)) <= 0,
        "probation",
        "between 1 ms and 1 min",
        probation);
    return new AdaptiveRestartBudget(name, probation, initialRate, holdAfter, maxRate, clusterWide);
  }

  /**
   * Sets a ceiling: whatever it learns, the budget grants at most {@code permits} per {@code
   * period}, paced at that rate (at most one scheduler tick of it ahead).
   *
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if a value is out of range
   */
  public AdaptiveRestartBudget withMaxRate(int permits, Duration period) {
    return new AdaptiveRestartBudget(
        name, probation, initialRate, holdAfter, new MaxRate(permits, period), clusterWide);
  }

  /**
   * Sets the rate the budget starts ramping at when a probe has survived; each time every restart of
   * a slice fails and the budget holds again, the next start is halved (not below 5 per second).
   *
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if a value is out of range or the rate is below 5 per second
   */
  public AdaptiveRestartBudget withInitialRate(int permits, Duration period) {
    BudgetRules.rate(permits, period);
    double rate = BudgetRules.perSecond(permits, period);
    Require.argument(rate >= 5, "initialRate", ">= 5 per second", rate + " per second");
    return new AdaptiveRestartBudget(name, probation, rate, holdAfter, maxRate, clusterWide);
  }

  /**
   * Sets how many failures of the group within one second make the budget hold restarts back (while
   * nothing is wrong, restarts pass at once).
   *
   * @param failures {@code >= 1}; default 10
   * @return a new budget
   * @throws IllegalArgumentException if {@code failures < 1}
   */
  public AdaptiveRestartBudget withHoldAfter(int failures) {
    Require.argument(failures >= 1, "holdAfter", ">= 1", failures);
    return new AdaptiveRestartBudget(name, probation, initialRate, failures, maxRate, clusterWide);
  }

  /**
   * Makes the budget act as one across a Pekko Cluster: each node runs its own controller on the
   * outcomes of its own restarts, and the nodes coordinate (one prober while the resource is down,
   * the news that it is back for every node, shares of the initial rate and of the ceiling that
   * follow each node's waiting actors). A node that loses the coordination falls back to {@code 1/N}
   * of the budget. Needs the {@code supervision-backoff-cluster} module on the classpath.
   *
   * @return a new, cluster-wide budget
   */
  @Override
  public AdaptiveRestartBudget clusterWide() {
    return new AdaptiveRestartBudget(name, probation, initialRate, holdAfter, maxRate, true);
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
   * How long a restarted actor must run without failing for its restart to count as a success.
   *
   * @return the probation; default 100 ms
   */
  public Duration getProbation() {
    return probation;
  }

  /**
   * The rate the budget starts ramping at, restarts per second.
   *
   * @return the initial rate; default 100
   */
  public double getInitialRate() {
    return initialRate;
  }

  /**
   * The failures within one second that make the budget hold.
   *
   * @return the threshold; default 10
   */
  public int getHoldAfter() {
    return holdAfter;
  }

  /**
   * The ceiling, if one was set with {@link #withMaxRate(int, Duration)}.
   *
   * @return the ceiling; empty by default
   */
  public Optional<MaxRate> getMaxRate() {
    return Optional.ofNullable(maxRate);
  }

  /**
   * Whether {@code other} is an adaptive budget with the same probation, initial rate, hold
   * threshold, ceiling and scope, whatever its name.
   *
   * @param other another budget
   * @return {@code true} if the settings are equal
   * @throws NullPointerException if {@code other} is null
   */
  @Override
  public boolean sameLimitsAs(RestartBudget other) {
    return Objects.requireNonNull(other, "other") instanceof AdaptiveRestartBudget a
        && probation.equals(a.probation)
        && Double.compare(initialRate, a.initialRate) == 0
        && holdAfter == a.holdAfter
        && Objects.equals(maxRate, a.maxRate)
        && clusterWide == a.clusterWide;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdaptiveRestartBudget a && a.name.equals(name) && sameLimitsAs(a);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, probation, initialRate, holdAfter, maxRate, clusterWide);
  }

  @Override
  public String toString() {
    return "RestartBudget{name="
        + name
        + ", adaptive, probation="
        + probation
        + ", initialRate="
        + initialRate
        + "/s, holdAfter="
        + holdAfter
        + (maxRate != null ? ", maxRate=" + maxRate : "")
        + (clusterWide ? ", cluster-wide" : "")
        + "}";
  }
}
