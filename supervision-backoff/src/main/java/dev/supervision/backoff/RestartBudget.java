package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A limit on how fast a group of actors may restart, shared by every supervised actor whose policy
 * names it ({@link BackoffPolicy#withBudget(RestartBudget)}). An immutable value of one of two
 * kinds:
 *
 * <ul>
 *   <li>a {@linkplain Fixed fixed} budget, {@link #of(String, int, Duration)}: at most
 *       {@code permits} restarts per {@code period}, plus a burst;
 *   <li>an {@linkplain Adaptive adaptive} budget, {@link #adaptive(String)}: it learns the rate
 *       the shared resource can take.
 * </ul>
 *
 * <p>An actor whose backoff delay has passed restarts only once it gets a permit (jitter spreads
 * restarts, but their peak still grows with the number of actors); first come, first served. Within
 * one actor system, the actors whose policies name the same budget ({@link #getName()}) share one
 * gate actor (see {@link RestartBudgets}); two budgets with the same name and different limits are
 * an error, reported when the second actor starts.
 *
 * <p>The interface is sealed; settings that belong to one kind exist only on its class, so a
 * setting of the wrong kind does not compile:
 *
 * <pre>{@code
 * RestartBudget.Fixed db = RestartBudget.of("db", 50, Duration.ofSeconds(1)).withBurst(10);
 * RestartBudget.Adaptive api = RestartBudget.adaptive("api").clusterWide();
 * }</pre>
 */
public sealed interface RestartBudget permits RestartBudget.Fixed, RestartBudget.Adaptive {

  /**
   * A fixed budget of {@code permits} restarts per {@code period}, with the default burst ({@code
   * max(1, permits / 10)}).
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @param permits restarts per period, {@code >= 1}
   * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
   * @return a new budget
   * @throws NullPointerException if {@code name} or {@code period} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank, {@code permits < 1} or the period is
   *     out of range
   */
  static Fixed of(String name, int permits, Duration period) {
    Check.nonBlank(name, "name");
    checkRate(permits, period);
    return new Fixed(name, permits, period, Math.max(1, permits / 10), false);
  }

  /**
   * An adaptive budget (see {@link Adaptive}). Defaults: probation 100 ms, no ceiling, ramping
   * starts at 100 restarts per second, holding starts after 10 failures within one second.
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @return a new budget
   * @throws NullPointerException if {@code name} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static Adaptive adaptive(String name) {
    Check.nonBlank(name, "name");
    return new Adaptive(name, Duration.ofMillis(100), 100, 10, null, false);
  }

  private static void checkRate(int permits, Duration period) {
    Check.atLeast(permits, 1, "permits");
    Check.delay(period, "period");
    Check.argument(period.toMillis() >= 10, "period", ">= PT0.01S", period);
  }

  /** {@return the name that identifies the budget within an actor system} */
  String getName();

  /** {@return whether the limit holds across a cluster rather than per actor system} */
  boolean isClusterWide();

  /**
   * Makes the budget hold for the sum of restarts on all nodes of a Pekko Cluster. Needs the {@code
   * supervision-backoff-cluster} module on the classpath; without it, an actor using the budget
   * fails to start.
   *
   * @return a new, cluster-wide budget of the same kind and settings
   */
  RestartBudget clusterWide();

  /**
   * Whether two budgets may share one gate: the same kind and every setting but the name equal.
   *
   * @param other another budget
   * @return {@code true} if they may
   * @throws NullPointerException if {@code other} is null
   */
  boolean sameLimitsAs(RestartBudget other);

  /**
   * A fixed {@link RestartBudget}: at most {@link #getPermits()} restarts per {@link #getPeriod()},
   * made with {@link RestartBudget#of(String, int, Duration)}; immutable and thread-safe.
   *
   * <p>A token bucket: it starts full with {@link #getBurst()} permits and is refilled, one every
   * {@code period / permits}, so in any interval {@code d} at most {@code burst + rate * (d +
   * tick)} restarts are granted, where {@code tick} is {@code pekko.scheduler.tick-duration} (10 ms
   * by default; set it to 1 ms behind a rate limiter that allows no burst). The gate's clock is a
   * fixed-rate timer: after a stall, the missed ticks are caught up at once.
   */
  final class Fixed implements RestartBudget {

    private final String name;
    private final int permits;
    private final Duration period;
    private final int burst;
    private final boolean clusterWide;

    private Fixed(String name, int permits, Duration period, int burst, boolean clusterWide) {
      this.name = name;
      this.permits = permits;
      this.period = period;
      this.burst = burst;
      this.clusterWide = clusterWide;
    }

    /**
     * Sets how many restarts may happen at once after a quiet period.
     *
     * @param burst {@code >= 1}; default {@code max(1, permits / 10)}
     * @return a new budget
     * @throws IllegalArgumentException if {@code burst < 1}
     */
    public Fixed withBurst(int burst) {
      Check.argument(burst >= 1, "burst", ">= 1", burst);
      return new Fixed(name, permits, period, burst, clusterWide);
    }

    /**
     * {@inheritDoc} Each node enforces {@code 1/N} of the permits and of the burst (at least one
     * permit of capacity), where {@code N} counts every member from joining until it is removed,
     * reachable or not, and at least this node.
     *
     * @return a new, cluster-wide budget
     */
    @Override
    public Fixed clusterWide() {
      return new Fixed(name, permits, period, burst, true);
    }

    @Override
    public boolean isClusterWide() {
      return clusterWide;
    }

    @Override
    public String getName() {
      return name;
    }

    /** {@return restarts granted per period} */
    public int getPermits() {
      return permits;
    }

    /** {@return the period over which {@link #getPermits()} are granted} */
    public Duration getPeriod() {
      return period;
    }

    /** {@return how many restarts may go at once after a quiet period} */
    public int getBurst() {
      return burst;
    }

    /**
     * {@inheritDoc} For a fixed budget: permits, period, burst and scope.
     */
    @Override
    public boolean sameLimitsAs(RestartBudget other) {
      return Objects.requireNonNull(other, "other") instanceof Fixed f
          && permits == f.permits
          && burst == f.burst
          && period.equals(f.period)
          && clusterWide == f.clusterWide;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Fixed f && f.name.equals(name) && sameLimitsAs(f);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, permits, period, burst, clusterWide);
    }

    @Override
    public String toString() {
      return "RestartBudget{name=%s, permits=%s, period=%s, burst=%s%s}"
          .formatted(name, permits, period, burst, clusterWide ? ", cluster-wide" : "");
    }
  }

  /**
   * An adaptive {@link RestartBudget}: it learns the rate the shared resource can take from the
   * outcomes of the restarts it grants. Made with {@link RestartBudget#adaptive(String)}; immutable
   * and thread-safe.
   *
   * <p>A restart whose actor fails again within the {@linkplain #withProbation(Duration) probation}
   * is a failure, one that survives it a success (permanent failures are not counted). While the
   * group keeps failing it holds restarts back, letting a probe through now and then; when a probe
   * survives it opens with slow start, cuts its rate to the measured goodput when restarts fail
   * again, and grows carefully after. See {@link
   * dev.supervision.backoff.rate.AdaptiveRateController} for the state machine.
   */
  final class Adaptive implements RestartBudget {

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
        checkRate(permits, period);
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

    private Adaptive(
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

    /**
     * Sets how long a restarted actor must run without failing for its restart to count as a
     * success, from the moment it has started (set up and handled its stash), in slices of 100 ms,
     * rounded up.
     *
     * @param probation {@code >= 1 ms} and {@code <= 1 min}; default 100 ms
     * @return a new budget
     * @throws NullPointerException if {@code probation} is null
     * @throws IllegalArgumentException if it is out of range
     */
    public Adaptive withProbation(Duration probation) {
      Check.delay(probation, "probation");
      Check.argument(
          probation.compareTo(Duration.ofMillis(1)) >= 0
              && probation.compareTo(Duration.ofMinutes(1)) <= 0,
          "probation",
          "between 1 ms and 1 min",
          probation);
      return new Adaptive(name, probation, initialRate, holdAfter, maxRate, clusterWide);
    }

    /**
     * Sets a ceiling: the budget grants at most {@code permits} per {@code period}, paced.
     *
     * @param permits restarts per period, {@code >= 1}
     * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
     * @return a new budget
     * @throws NullPointerException if {@code period} is null
     * @throws IllegalArgumentException if a value is out of range
     */
    public Adaptive withMaxRate(int permits, Duration period) {
      return new Adaptive(
          name, probation, initialRate, holdAfter, new MaxRate(permits, period), clusterWide);
    }

    /**
     * Sets the rate the budget starts ramping at when a probe has survived; halved (not below 5 per
     * second) each time the budget holds again.
     *
     * @param permits restarts per period, {@code >= 1}
     * @param period the period, {@code >= 10 ms} and {@code <= 180 days}
     * @return a new budget
     * @throws NullPointerException if {@code period} is null
     * @throws IllegalArgumentException if a value is out of range or the rate is below 5 per second
     */
    public Adaptive withInitialRate(int permits, Duration period) {
      checkRate(permits, period);
      double rate = permits / (period.toNanos() / 1e9);
      Check.argument(rate >= 5, "initialRate", ">= 5 per second", rate + " per second");
      return new Adaptive(name, probation, rate, holdAfter, maxRate, clusterWide);
    }

    /**
     * Sets how many failures of the group within one second make the budget hold restarts back.
     *
     * @param failures {@code >= 1}; default 10
     * @return a new budget
     * @throws IllegalArgumentException if {@code failures < 1}
     */
    public Adaptive withHoldAfter(int failures) {
      Check.argument(failures >= 1, "holdAfter", ">= 1", failures);
      return new Adaptive(name, probation, initialRate, failures, maxRate, clusterWide);
    }

    /**
     * {@inheritDoc} Each node runs its own controller on its own restarts, and the nodes coordinate
     * (one prober while the resource is down, shares of the initial rate and of the ceiling that
     * follow each node's waiting actors); a node that loses the coordination falls back to {@code
     * 1/N} of the budget.
     *
     * @return a new, cluster-wide budget
     */
    @Override
    public Adaptive clusterWide() {
      return new Adaptive(name, probation, initialRate, holdAfter, maxRate, true);
    }

    @Override
    public boolean isClusterWide() {
      return clusterWide;
    }

    @Override
    public String getName() {
      return name;
    }

    /** {@return how long a restarted actor must run to count as a success; default 100 ms} */
    public Duration getProbation() {
      return probation;
    }

    /** {@return the rate the budget starts ramping at, restarts per second; default 100} */
    public double getInitialRate() {
      return initialRate;
    }

    /** {@return the failures within one second that make the budget hold; default 10} */
    public int getHoldAfter() {
      return holdAfter;
    }

    /** {@return the ceiling set with {@link #withMaxRate(int, Duration)}; empty by default} */
    public Optional<MaxRate> getMaxRate() {
      return Optional.ofNullable(maxRate);
    }

    /**
     * {@inheritDoc} For an adaptive budget: probation, initial rate, hold threshold, ceiling and
     * scope.
     */
    @Override
    public boolean sameLimitsAs(RestartBudget other) {
      return Objects.requireNonNull(other, "other") instanceof Adaptive a
          && probation.equals(a.probation)
          && Double.compare(initialRate, a.initialRate) == 0
          && holdAfter == a.holdAfter
          && Objects.equals(maxRate, a.maxRate)
          && clusterWide == a.clusterWide;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Adaptive a && a.name.equals(name) && sameLimitsAs(a);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, probation, initialRate, holdAfter, maxRate, clusterWide);
    }

    @Override
    public String toString() {
      return "RestartBudget{name=%s, adaptive, probation=%s, initialRate=%s/s, holdAfter=%s%s%s}"
          .formatted(
              name,
              probation,
              initialRate,
              holdAfter,
              maxRate != null ? ", maxRate=" + maxRate : "",
              clusterWide ? ", cluster-wide" : "");
    }
  }
}
