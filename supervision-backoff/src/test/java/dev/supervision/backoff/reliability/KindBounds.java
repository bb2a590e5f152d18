package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.Jitter;

/**
 * The documented range of each jitter kind (see {@link Jitter}), written from the javadoc's
 * formulas, and the check that a delay lies in it.
 */
final class KindBounds {

  private KindBounds() {}

  /**
   * Asserts that {@code delay} is what {@code jitter} may give for this step, and never outside
   * {@code [0, max]}.
   */
  static void check(
      Jitter jitter, long min, long max, long bound, long previous, double draw, long delay) {
    String where =
        jitter
            + " min="
            + min
            + " max="
            + max
            + " bound="
            + bound
            + " previous="
            + previous
            + " draw="
            + draw
            + " delay="
            + delay;
    assertTrue(delay >= 0, "negative delay: " + where);
    assertTrue(delay <= max, "delay above the cap: " + where);
    // double arithmetic on values above 2^53 ns (104 days) rounds; allow for that and the cast
    double slack = 2.0 + Math.ulp((double) max) * 4;
    if (jitter == Jitter.full()) {
      assertTrue(delay <= bound, "full jitter above its bound: " + where);
      assertEquals(draw * bound, delay, slack, "full jitter is draw * bound: " + where);
    } else if (jitter == Jitter.equal()) {
      assertTrue(
          delay >= bound / 2 && delay <= bound, "equal jitter outside [bound/2, bound]: " + where);
      assertEquals(
          bound / 2.0 + draw * bound / 2.0, delay, slack, "equal jitter formula: " + where);
    } else if (jitter == Jitter.decorrelated()) {
      double upper = Math.min((double) max, 3.0 * previous);
      assertTrue(
          delay >= Math.min(min, max) && delay <= upper + slack,
          "decorrelated jitter outside [min, min(max, 3 * previous)]: " + where);
      assertEquals(
          Math.min(max, min + draw * (3.0 * previous - min)),
          delay,
          slack,
          "decorrelated jitter formula: " + where);
    } else if (jitter == Jitter.none()) {
      assertEquals(bound, delay, "no jitter is the bound: " + where);
    } else if (jitter == Generators.HALF_BOUND) {
      assertEquals(
          Math.min(max, bound * (0.5 + draw)), delay, slack, "custom jitter, clamped: " + where);
    }
    // Generators.WILD: only [0, max], checked above
  }
}
