package dev.supervision.herd;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One herd scenario: how many cells, how long the resource is down, the backoff bounds every
 * strategy uses, and how the run is timed. Immutable and validated.
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
    Path outputDir) {

  /** The default number of cells. */
  public static final int DEFAULT_CELLS = 10_000;

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
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if a value is outside its rule; the message names it
   */
  public HerdScenario {
    Objects.requireNonNull(outage, "outage");
    Objects.requireNonNull(minBackoff, "min");
    Objects.requireNonNull(maxBackoff, "max");
    Objects.requireNonNull(strategies, "strategies");
    Objects.requireNonNull(outputDir, "output folder");
    require(cells >= 1, "cells must be >= 1 but was " + cells);
    require(cells <= 10_000_000, "cells must be <= 10000000 but was " + cells);
    require(!outage.isNegative() && !outage.isZero(), "outage must be > 0 but was " + outage.toMillis() + "ms");
    require(outage.compareTo(Duration.ofHours(1)) <= 0, "outage must be <= 1h but was " + outage);
    require(!minBackoff.isNegative() && !minBackoff.isZero(), "min must be > 0 but was " + minBackoff.toMillis() + "ms");
    require(maxBackoff.compareTo(minBackoff) >= 0,
        "max must be >= min (" + minBackoff.toMillis() + "ms) but was " + maxBackoff.toMillis() + "ms");
    require(maxBackoff.compareTo(Duration.ofHours(1)) <= 0, "max must be <= 1h but was " + maxBackoff);
    require(scale > 0 && scale <= 10, "scale must be in (0, 10] but was " + scale);
    require(!strategies.isEmpty(), "strategies must name at least one strategy");
    strategies = List.copyOf(strategies);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * The longest a run waits for the last cell, in model time: the outage, then 1.25 times the
   * longest backoff (Pekko's jitter may exceed its cap by its random factor), then the time the
   * restart budget row needs to admit every cell ({@code cells / }{@link Strategies#BUDGET_PER_SECOND}
   * seconds), then 5 seconds.
   *
   * @return the horizon of the run
   */
  public Duration horizon() {
    Duration budgetDrain = Duration.ofMillis(1000L * cells / Strategies.BUDGET_PER_SECOND);
    return outage.plus(maxBackoff.multipliedBy(5).dividedBy(4)).plus(budgetDrain).plusSeconds(5);
  }
}
