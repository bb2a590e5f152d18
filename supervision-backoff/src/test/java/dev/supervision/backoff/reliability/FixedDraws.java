package dev.supervision.backoff.reliability;

import java.util.random.RandomGenerator;

/**
 * A {@link RandomGenerator} whose {@link #nextDouble()} returns the given draws in turn (and then
 * again from the start), so that a schedule can be checked against known jitter draws.
 */
final class FixedDraws implements RandomGenerator {

  private final double[] draws;
  private int next;

  FixedDraws(double... draws) {
    if (draws.length == 0) {
      throw new IllegalArgumentException("draws must not be empty");
    }
    for (double d : draws) {
      if (!(d >= 0.0 && d < 1.0)) {
        throw new IllegalArgumentException("a draw must be in [0, 1) but was " + d);
      }
    }
    this.draws = draws.clone();
  }

  @Override
  public double nextDouble() {
    double d = draws[next];
    next = (next + 1) % draws.length;
    return d;
  }

  @Override
  public long nextLong() {
    throw new UnsupportedOperationException("the schedule must draw doubles only");
  }
}
