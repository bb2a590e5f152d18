package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * What the rows derive from the scenario the same way: real-time durations and policies, the
 * logging, a reproducible random source per cell, the bounds in descriptions, a gated exact run.
 */
final class RowSupport {

  private RowSupport() {}

  /**
   * A duration in real time.
   *
   * @param model a model duration
   * @param scale real time per model time
   * @return {@code model * scale}, at least 1 ns
   */
  static Duration scaled(Duration model, double scale) {
    return Duration.ofNanos(Math.max(1, Math.round(model.toNanos() * scale)));
  }

  /**
   * The scenario's minimum backoff in real time.
   *
   * @param s the scenario
   * @return {@code minBackoff * scale}
   */
  static Duration realMin(HerdScenario s) {
    return scaled(s.minBackoff(), s.scale());
  }

  /**
   * The scenario's maximum backoff in real time.
   *
   * @param s the scenario
   * @return {@code maxBackoff * scale}
   */
  static Duration realMax(HerdScenario s) {
    return scaled(s.maxBackoff(), s.scale());
  }

  /**
   * This library's policy of a real-mode row: the scenario's bounds in real time, a jitter, the
   * scenario's seed (not yet its logging: see {@link #logged}).
   *
   * @param s the scenario
   * @param jitter the row's jitter
   * @return the policy
   */
  static BackoffPolicy realPolicy(HerdScenario s, Jitter jitter) {
    return BackoffPolicy.exponential(realMin(s), realMax(s))
        .withJitter(jitter)
        .withRandomSeed(s.seed());
  }

  /**
   * An exact run with another run's delays and a gate of its own.
   *
   * @param delays the run whose delays to take
   * @param gate makes a fresh gate each time the run is asked for one
   * @return the run
   */
  static HerdStrategy.ExactRun gated(
      HerdStrategy.ExactRun delays, Supplier<HerdStrategy.ExactGate> gate) {
    return new HerdStrategy.ExactRun() {
      @Override
      public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
        return delays.restartDelayNanos(index, attempt, failedAtNanos);
      }

      @Override
      public HerdStrategy.ExactGate gate() {
        return gate.get();
      }
    };
  }

  /** An independent, reproducible random source per cell. */
  static SplittableRandom randomFor(long seed, int index) {
    return new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L));
  }

  /**
   * A row's policy with the scenario's logging: off, the policy's defaults (aggregated for a
   * policy with a budget), or the defaults without aggregation.
   *
   * @param policy the row's policy, with its default logging
   * @param s the scenario
   * @return the policy to use
   */
  static BackoffPolicy logged(BackoffPolicy policy, HerdScenario s) {
    return switch (s.logging()) {
      case OFF -> policy.withLoggingEnabled(false);
      case DEFAULTS -> policy;
      case UNAGGREGATED -> policy.withAggregatedLogging(false);
    };
  }

  /** The backoff bounds as they appear in descriptions: {@code 100ms, 20s}. */
  static String bounds(HerdScenario s) {
    return millis(s.minBackoff()) + ", " + millis(s.maxBackoff());
  }

  private static String millis(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }
}
