package dev.supervision.backoff.internal.util;

/**
 * INTERNAL API: the arithmetic of the four standard jitters of {@code Jitter}, in nanoseconds.
 * Users obtain the jitters through {@code Jitter.full()} and friends; this enum only computes, and
 * depends on nothing of this library.
 */
public enum StandardJitter {
  // Above 2^53 ns (about 104 days) a long does not survive a trip through double: it rounds to an
  // even neighbour. So only the random part is computed in double, and the ends of each range are
  // kept in long arithmetic: a delay never falls 1 ns below its range's start or above its end.

  /** {@code u * bound}. */
  FULL {
    @Override
    long unclamped(long min, long max, long bound, long previous, double draw) {
      return Math.min(bound, (long) (bound * draw));
    }
  },
  /** {@code bound/2 + u * bound/2}. */
  EQUAL {
    @Override
    long unclamped(long min, long max, long bound, long previous, double draw) {
      long half = bound / 2;
      long rest = bound - half;
      return half + Math.min(rest, (long) (draw * rest));
    }
  },
  /** {@code min(max, min + u * (3 * previous - min))}. */
  DECORRELATED {
    @Override
    long unclamped(long min, long max, long bound, long previous, double draw) {
      long offset = (long) (draw * Math.max(0.0, 3.0 * previous - min));
      // never above max, and no overflow when 3 * previous is huge (the cast saturates)
      return min + Math.min(offset, max - min);
    }
  },
  /** {@code bound}. */
  NONE {
    @Override
    long unclamped(long min, long max, long bound, long previous, double draw) {
      return bound;
    }
  };

  abstract long unclamped(long min, long max, long bound, long previous, double draw);

  /**
   * The delay in nanoseconds, clamped to {@code [0, max]}.
   *
   * @param min the policy's minimum backoff in nanoseconds
   * @param max the policy's maximum backoff in nanoseconds
   * @param bound this attempt's exponential bound in nanoseconds
   * @param previous the previous delay in nanoseconds
   * @param draw a uniform draw in {@code [0, 1)}
   * @return the delay in nanoseconds, within {@code [0, max]}
   */
  public long delayNanos(long min, long max, long bound, long previous, double draw) {
    return Math.max(0, Math.min(unclamped(min, max, bound, previous, draw), max));
  }
}
