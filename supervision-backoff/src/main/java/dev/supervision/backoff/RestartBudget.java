package dev.supervision.backoff;

import java.time.Duration;
import java.util.Objects;

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
 * at {@code permits / period}, in equal slices of at least 100 ms, up to {@code burst}. So in any
 * window of one {@code period}, at most {@code burst + permits} restarts are granted. The refill
 * timer uses a fixed delay, so a busy machine can only lower the rate (by up to about 10 % from the
 * scheduler's rounding in real time), never raise it. The default burst is {@code max(1, permits /
 * 10)}.
 *
 * <p>Budgets are identified by {@link #getName()} within one {@code ActorSystem}: all actors of a
 * system whose policies name the same budget share one gate actor (owned by the {@link
 * RestartBudgets} extension), with no wiring by the user. Two budgets with the same name and
 * different limits in one system are an error, reported when the second actor starts.
 */
public final class RestartBudget {

  private static final Duration MIN_SLICE = Duration.ofMillis(10);

  private final String name;
  private final int permits;
  private final Duration period;
  private final int burst;
  private final boolean clusterWide;

  private RestartBudget(String name, int permits, Duration period, int burst, boolean clusterWide) {
    this.name = name;
    this.permits = permits;
    this.period = period;
    this.burst = burst;
    this.clusterWide = clusterWide;
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
   * once after a quiet period.
   *
   * @param burst {@code >= 1}
   * @return a new budget
   * @throws IllegalArgumentException if {@code burst < 1}
   */
  public RestartBudget withBurst(int burst) {
    Require.argument(burst >= 1, "burst", ">= 1", burst);
    return new RestartBudget(name, permits, period, burst, clusterWide);
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
    return new RestartBudget(name, permits, period, burst, true);
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
    return permits == other.permits && burst == other.burst && period.equals(other.period)
        && clusterWide == other.clusterWide;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RestartBudget && ((RestartBudget) o).name.equals(name) && sameLimitsAs((RestartBudget) o);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, permits, period, burst, clusterWide);
  }

  @Override
  public String toString() {
    return "RestartBudget{name=" + name + ", permits=" + permits + ", period=" + period + ", burst=" + burst
        + (clusterWide ? ", cluster-wide" : "") + "}";
  }
}
