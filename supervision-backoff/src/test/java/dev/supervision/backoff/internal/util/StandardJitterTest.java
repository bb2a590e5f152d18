package dev.supervision.backoff.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The arithmetic of the standard jitters in nanoseconds, with fixed draws: exact values, the clamp
 * to {@code [0, max]}, and no overflow for huge inputs. Expected values are worked out by hand.
 */
final class StandardJitterTest {

  static final long MIN = 100;
  static final long MAX = 10_000;

  @Test
  void full_isTheDrawTimesTheBoundRoundedDown() {
    assertEquals(0, StandardJitter.FULL.delayNanos(MIN, MAX, 800, MIN, 0.0));
    assertEquals(200, StandardJitter.FULL.delayNanos(MIN, MAX, 800, MIN, 0.25));
    assertEquals(799, StandardJitter.FULL.delayNanos(MIN, MAX, 800, MIN, 0.999)); // 799.2
  }

  @Test
  void full_isClampedToMaxAndToZero() {
    // 0.75 * 20,000 = 15,000 > max
    assertEquals(MAX, StandardJitter.FULL.delayNanos(MIN, MAX, 20_000, MIN, 0.75));
    // a draw outside [0, 1) from a caller of the public Jitter: never a negative delay
    assertEquals(0, StandardJitter.FULL.delayNanos(MIN, MAX, 800, MIN, -0.5));
  }

  @Test
  void equal_isHalfTheBoundPlusTheDrawTimesTheOtherHalf() {
    // bound 801: half 400 (rounded down), rest 401
    assertEquals(400, StandardJitter.EQUAL.delayNanos(MIN, MAX, 801, MIN, 0.0));
    assertEquals(600, StandardJitter.EQUAL.delayNanos(MIN, MAX, 801, MIN, 0.5)); // 400 + 200
    assertEquals(800, StandardJitter.EQUAL.delayNanos(MIN, MAX, 801, MIN, 0.999)); // 400 + 400
  }

  @Test
  void equal_isClampedToMax() {
    // 10,000 + 0.5 * 10,000 = 15,000 > max
    assertEquals(MAX, StandardJitter.EQUAL.delayNanos(MIN, MAX, 20_000, MIN, 0.5));
  }

  @Test
  void decorrelated_isMinPlusTheDrawTimesThreePreviousMinusMin() {
    assertEquals(MIN, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 300, 0.0));
    // 100 + 0.5 * (900 - 100)
    assertEquals(500, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 300, 0.5));
    // 100 + 0.25 * (3,000 - 100) = 100 + 725
    assertEquals(825, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 1_000, 0.25));
  }

  @Test
  void decorrelated_ignoresTheBound() {
    assertEquals(500, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 9_000, 300, 0.5));
  }

  @Test
  void decorrelated_isMinWhenThreeTimesThePreviousIsNotAboveMin() {
    assertEquals(MIN, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 0, 0.9));
    assertEquals(300, StandardJitter.DECORRELATED.delayNanos(300, MAX, 300, 100, 0.9)); // 3 * 100
  }

  @Test
  void decorrelated_isCappedAtMax() {
    // 100 + 0.5 * (19,800 - 100) = 9,950: just below the cap
    assertEquals(9_950, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 6_600, 0.5));
    // 100 + 0.5 * (20,100 - 100) = 10,100: capped
    assertEquals(MAX, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 6_700, 0.5));
    assertEquals(MAX, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, 10_000, 0.9));
  }

  @Test
  void decorrelated_doesNotOverflowForAHugePrevious() {
    // 3 * previous overflows a long; the delay is still the cap, not a negative number or 0
    assertEquals(
        MAX, StandardJitter.DECORRELATED.delayNanos(MIN, MAX, 200, Long.MAX_VALUE / 2, 0.9));
    long max = Long.MAX_VALUE - 10;
    assertEquals(
        max, StandardJitter.DECORRELATED.delayNanos(MIN, max, 200, Long.MAX_VALUE / 2, 0.9));
  }

  @Test
  void none_isTheBoundClampedToMax() {
    assertEquals(800, StandardJitter.NONE.delayNanos(MIN, MAX, 800, MIN, 0.7));
    assertEquals(MAX, StandardJitter.NONE.delayNanos(MIN, MAX, 20_000, MIN, 0.7));
  }
}
