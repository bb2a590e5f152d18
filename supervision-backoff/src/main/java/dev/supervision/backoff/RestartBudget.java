package dev.supervision.backoff;

import dev.supervision.backoff.internal.util.Check;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A limit on how fast a whole group of actors may restart, shared by every supervised actor whose
 * policy names it (see {@link BackoffPolicy#withBudget(RestartBudget)}). An immutable, validated
 * value of one of two kinds:
 *
 * <ul>
 *   <li>a {@linkplain Fixed fixed} budget, {@link #of(String, int, Duration)}: at most
 *       {@code permits} restarts per {@code period}, plus a burst;
 *   <li>an {@linkplain Adaptive adaptive} budget, {@link #adaptive(String)}: no fixed
 *       rate; it learns the rate the shared resource can take from the outcomes of the restarts it
 *       grants.
 * </ul>
 *
 * <p>Jitter spreads restarts, but their peak still grows with the number of actors. A budget limits
 * the group: when an actor's backoff delay has passed, it asks the budget for a permit and restarts
 * only when it gets one. Waiting actors are served first come, first served; an actor stopped while
 * it waits gives up its place.
 *
 * <p>Budgets are identified by {@link #getName()} within one {@code ActorSystem}: all actors of a
 * system whose policies name the same budget share one gate actor (owned by the {@link
 * RestartBudgets} extension), with no wiring by the user. Two budgets with the same name and
 * different limits ({@link #sameLimitsAs(RestartBudget)}) in one system are an error, reported when
 * the second actor starts.
 *
 * <p>The interface is sealed: its two kinds, nested here as {@link Fixed RestartBudget.Fixed} and
 * {@link Adaptive RestartBudget.Adaptive}, are the only implementations. Settings that belong to one
 * kind exist only on its class ({@code withBurst} on a fixed budget, {@code withProbation} on an
 * adaptive one), so a setting of the wrong kind does not compile:
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
   * An adaptive budget: no fixed rate; it learns the rate from the outcomes of the restarts it
   * grants (see {@link Adaptive}). Defaults: probation 100 ms, no ceiling, ramping
   * starts at 100 restarts per second, holding starts after 10 failures within one second.
   *
   * @param name the budget's name, shared by all actors of a system that use it; not blank
   * @return a new budget
   * @throws NullPointerException if {@code name} is {@code null}
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static Adaptive adaptive(String name) {
    Check.nonBlank(name, "name");
    return new Adaptive(
        name,
        Adaptive.DEFAULT_PROBATION,
        Adaptive.DEFAULT_INITIAL_RATE,
        Adaptive.DEFAULT_HOLD_AFTER,
        null,
        false);
  }

  /** Checks {@code permits} per {@code period}, a rate's rule, naming {@code permits} or {@code period}. */
  private static void checkRate(int permits, Duration period) {
    Check.atLeast(permits, 1, "permits");
    Check.delay(period, "period");
    Check.argument(period.toMillis() >= 10, "period", ">= PT0.01S", period);
  }

  /**
   * The name that identifies the budget within an actor system.
   *
   * @return the name
   */
  String getName();

  /**
   * Whether the limit holds across a cluster rather than per actor system.
   *
   * @return {@code true} for a cluster-wide budget
   */
  boolean isClusterWide();

  /**
   * Makes the budget hold for the sum of restarts on all nodes of a Pekko Cluster, instead of per
   * actor system (see each kind for what a node enforces). Needs the {@code
   * supervision-backoff-cluster} module on the classpath (found with {@link
   * java.util.ServiceLoader}); without it, an actor using the budget fails to start with a message
   * saying so.
   *
   * @return a new, cluster-wide budget of the same kind and settings
   */
  RestartBudget clusterWide();

  /**
   * Whether two budgets have the same kind and the same limits (every setting but the name), so that
   * they may share one gate.
   *
   * @param other another budget
   * @return {@code true} if the kind and every setting but the name are equal
   * @throws NullPointerException if {@code other} is null
   */
  boolean sameLimitsAs(RestartBudget other);

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
     * Sets how many permits the budget holds when it is full, that is how many restarts may happen at
     * once after a quiet period.
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
   * {@link dev.supervision.backoff.rate.AdaptiveRateController} for the state machine.
   */
  final class Adaptive implements RestartBudget {

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
     * Sets how long a restarted actor must run without failing for its restart to count as a success.
     * It is counted from the moment the restarted actor has started (its behavior is set up and has
     * handled the messages stashed during its backoff), in slices of 100 ms, rounded up.
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
     * Sets a ceiling: whatever it learns, the budget grants at most {@code permits} per {@code
     * period}, paced at that rate (at most one scheduler tick of it ahead).
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
     * Sets the rate the budget starts ramping at when a probe has survived; each time every restart of
     * a slice fails and the budget holds again, the next start is halved (not below 5 per second).
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
     * Sets how many failures of the group within one second make the budget hold restarts back (while
     * nothing is wrong, restarts pass at once).
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
     * Makes the budget act as one across a Pekko Cluster: each node runs its own controller on the
     * outcomes of its own restarts, and the nodes coordinate (one prober while the resource is down,
     * the news that it is back for every node, shares of the initial rate and of the ceiling that
     * follow each node's waiting actors). A node that loses the coordination falls back to {@code 1/N}
     * of the budget. Needs the {@code supervision-backoff-cluster} module on the classpath.
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
}
