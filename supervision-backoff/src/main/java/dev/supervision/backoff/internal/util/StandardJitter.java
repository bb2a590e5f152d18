package dev.supervision.backoff.internal.util;

/** INTERNAL API: the arithmetic of {@code Jitter}'s four standard kinds, in nanoseconds. */
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

  // the delay, clamped to [0, max]
  public long delayNanos(long min, long max, long bound, long previous, double draw) {
    return Math.max(0, Math.min(unclamped(min, max, bound, previous, draw), max));
  }
}
