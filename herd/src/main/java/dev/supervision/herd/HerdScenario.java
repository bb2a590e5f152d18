package dev.supervision.herd;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One herd scenario: how many cells, how long the resource is down and how it behaves once back,
 * the backoff bounds every strategy uses, and how the run is timed. Immutable and validated. It knows
 * nothing of any one strategy: a row that needs more time than the scenario's horizon (a restart
 * budget draining the herd at its fixed rate, say) asks for it itself ({@link
 * HerdStrategy#extraTime(HerdScenario)}).
 *
 * <p>All durations are <em>model</em> durations. In real mode the run multiplies each of them by
 * {@link #scale()} before it hands them to Pekko, and divides every measured time by it again, so
 * the results are always reported in model time.
 *
 * @param cells number of cells, {@code >= 1}
 * @param outage how long the resource is down, {@code > 0}
 * @param minBackoff every backoff strategy's minimum backoff, {@code > 0}
 * @param maxBackoff every backoff strategy's maximum backoff, {@code >= minBackoff}
 * @param scale real time per model time in real mode, in {@code (0, 10]}; ignored in exact mode
 * @param seed the seed of every seedable random source
 * @param exact {@code true} for the discrete-event mode, {@code false} for a real {@code ActorSystem}
 * @param strategies ids of the strategies to run, in order (see {@link Strategies})
 * @param outputDir where {@code results.json} and {@code herd.png} are written
 * @param resource how the resource behaves once it is back
 * @param horizonAfterOutage how long after the outage a row may run before it stops where it got;
 *     {@code null} for the default ({@link #horizon(Duration)})
 * @param cluster the cluster the adaptive row runs on in exact mode ({@link ClusterSpec#SINGLE} for
 *     one node)
 * @param logging how the real-mode rows' supervisors log their restarts
 */
public record HerdScenario(
    int cells,
    Duration outage,
    Duration minBackoff,
    Duration maxBackoff,
    double scale,
    long seed,
    boolean exact,
    List<String> strategies,
    Path outputDir,
    ResourceSpec resource,
    Duration horizonAfterOutage,
    ClusterSpec cluster,
    HerdScenario.Logging logging) {

  /** How the real-mode rows' supervisors log their restarts. */
  public enum Logging {
    /** Not at all (the default: the herd is noisy by design). */
    OFF,
    /** At the policy's defaults (Pekko's supervisor: its logging on). */
    DEFAULTS,
    /** At the policy's defaults but without aggregation: one line per failure. */
    UNAGGREGATED
  }

  /**
   * The same scenario with the rows' logging set.
   *
   * @param how how the rows log their restarts
   * @return the new scenario
   */
  public HerdScenario withLogging(Logging how) {
    return with(cluster, how);
  }

  /** The default number of cells. */
  public static final int DEFAULT_CELLS = 10_000;

  /** The default capacity of the resource once back, in calls per second. */
  public static final int DEFAULT_CAPACITY = 1_000;

  /** The default horizon, as a multiple of the physical limit. */
  public static final int HORIZON_LIMITS = 3;

  /**
   * Validates the scenario.
   *
   * @param cells number of cells
   * @param outage how long the resource is down
   * @param minBackoff every backoff strategy's minimum backoff
   * @param maxBackoff every backoff strategy's maximum backoff
   * @param scale real time per model time in real mode
   * @param seed the seed of every seedable random source
   * @param exact whether to run the discrete-event mode
   * @param strategies ids of the strategies to run, in order
   * @param outputDir where the results are written
   * @param resource how the resource behaves once back
   * @param horizonAfterOutage how long after the outage a row may run, or {@code null} for the default
   * @param cluster the cluster of the adaptive row in exact mode
   * @throws NullPointerException if an argument other than {@code horizonAfterOutage} is {@code null}
   * @throws ScenarioException if a value is outside its rule; it names the setting
   */
  public HerdScenario {
    Objects.requireNonNull(outage, "outage");
    Objects.requireNonNull(minBackoff, "min");
    Objects.requireNonNull(maxBackoff, "max");
    Objects.requireNonNull(strategies, "strategies");
    Objects.requireNonNull(outputDir, "output folder");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(logging, "logging");
    ScenarioException.require(cells >= 1, "cells", ">= 1", cells);
    ScenarioException.require(cells <= 10_000_000, "cells", "<= 10000000", cells);
    ScenarioException.require(
        positive(outage) && outage.compareTo(Duration.ofHours(1)) <= 0,
        "outage",
        "in (0, 1h]",
        outage.toMillis() + "ms");
    ScenarioException.require(positive(minBackoff), "min", "> 0", minBackoff.toMillis() + "ms");
    ScenarioException.require(
        maxBackoff.compareTo(minBackoff) >= 0,
        "max",
        ">= min (" + minBackoff.toMillis() + "ms)",
        maxBackoff.toMillis() + "ms");
    ScenarioException.require(
        maxBackoff.compareTo(Duration.ofHours(1)) <= 0,
        "max",
        "<= 1h",
        maxBackoff.toMillis() + "ms");
    ScenarioException.require(scale > 0 && scale <= 10, "scale", "in (0, 10]", scale);
    ScenarioException.require(
        !strategies.isEmpty(), "strategies", "at least one strategy id", "none");
    ScenarioException.require(
        horizonAfterOutage == null
            || (positive(horizonAfterOutage)
                && horizonAfterOutage.compareTo(Duration.ofDays(1)) <= 0),
        "horizon",
        "in (0, 1d]",
        horizonAfterOutage == null ? "" : horizonAfterOutage.toMillis() + "ms");
    strategies = List.copyOf(strategies);
  }

  /**
   * A scenario on one node whose rows do not log their restarts (set those with {@link
   * #withCluster(ClusterSpec)} and {@link #withLogging(Logging)}).
   *
   * @param cells number of cells
   * @param outage how long the resource is down
   * @param minBackoff every backoff strategy's minimum backoff
   * @param maxBackoff every backoff strategy's maximum backoff
   * @param scale real time per model time in real mode
   * @param seed the seed of every seedable random source
   * @param exact whether to run the discrete-event mode
   * @param strategies ids of the strategies to run, in order
   * @param outputDir where the results are written
   * @param resource how the resource behaves once back
   * @param horizonAfterOutage how long after the outage a row may run, or {@code null} for the default
   * @throws ScenarioException if a value is outside its rule
   */
  public HerdScenario(
      int cells,
      Duration outage,
      Duration minBackoff,
      Duration maxBackoff,
      double scale,
      long seed,
      boolean exact,
      List<String> strategies,
      Path outputDir,
      ResourceSpec resource,
      Duration horizonAfterOutage) {
    this(
        cells,
        outage,
        minBackoff,
        maxBackoff,
        scale,
        seed,
        exact,
        strategies,
        outputDir,
        resource,
        horizonAfterOutage,
        ClusterSpec.SINGLE,
        Logging.OFF);
  }

  /**
   * The same scenario on another cluster.
   *
   * @param spec the cluster
   * @return the new scenario
   */
  public HerdScenario withCluster(ClusterSpec spec) {
    return with(spec, logging);
  }

  private HerdScenario with(ClusterSpec spec, Logging how) {
    return new HerdScenario(
        cells,
        outage,
        minBackoff,
        maxBackoff,
        scale,
        seed,
        exact,
        strategies,
        outputDir,
        resource,
        horizonAfterOutage,
        spec,
        how);
  }

  /**
   * A scenario with an unlimited resource and the default horizon.
   *
   * @param cells number of cells
   * @param outage how long the resource is down
   * @param minBackoff every backoff strategy's minimum backoff
   * @param maxBackoff every backoff strategy's maximum backoff
   * @param scale real time per model time in real mode
   * @param seed the seed of every seedable random source
   * @param exact whether to run the discrete-event mode
   * @param strategies ids of the strategies to run, in order
   * @param outputDir where the results are written
   * @throws ScenarioException if a value is outside its rule
   */
  public HerdScenario(
      int cells,
      Duration outage,
      Duration minBackoff,
      Duration maxBackoff,
      double scale,
      long seed,
      boolean exact,
      List<String> strategies,
      Path outputDir) {
    this(
        cells,
        outage,
        minBackoff,
        maxBackoff,
        scale,
        seed,
        exact,
        strategies,
        outputDir,
        ResourceSpec.UNLIMITED,
        null);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  /**
   * The physical limit: how long after the outage the resource needs to serve one call per cell at
   * its capacity ({@code N / C}, longer while cold).
   *
   * @return the limit; zero if the capacity is unlimited
   */
  public Duration physicalLimit() {
    return Duration.ofNanos(resource.physicalLimitNanos(cells, outage.toNanos()));
  }

  /**
   * The longest a row runs, in model time since the outage began: the horizon after the outage if
   * one was set; otherwise the outage, then the longer of {@value #HORIZON_LIMITS} times the
   * physical limit and 1.25 times the longest backoff plus 5 s (Pekko's jitter may exceed its cap by
   * its random factor), then the row's own extra time. A row that is not done by then stops and
   * reports how far it got.
   *
   * @param extra what the row asks for beyond the scenario's horizon; ignored if a horizon was set
   * @return the horizon since the outage began
   */
  public Duration horizon(Duration extra) {
    if (horizonAfterOutage != null) {
      return outage.plus(horizonAfterOutage);
    }
    Duration backoff = maxBackoff.multipliedBy(5).dividedBy(4).plusSeconds(5);
    Duration limits = physicalLimit().multipliedBy(HORIZON_LIMITS);
    return outage.plus(limits.compareTo(backoff) > 0 ? limits : backoff).plus(extra);
  }
}
