package dev.supervision.backoff.rate;

import java.util.Arrays;

/**
 * The failures of the last second, counted by slice of {@link AdaptiveRateController#SLICE}: the
 * window in which {@code holdAfter} failures make a steady group hold. Slice numbers are {@code
 * floorDiv(nowNanos, SLICE)} and never decrease. Pure; not thread-safe.
 */
final class FailureWindow {

  /** One second of slices: {@code holdAfter} is a number of failures per second. */
  static final int SLICES = 10;

  private static final long NONE = Long.MIN_VALUE;

  private final int[] counts = new int[SLICES];
  private long last = NONE;
  private int total;

  /** Moves to slice {@code k}, forgetting the failures of the slices a second or more before. */
  void advanceTo(long k) {
    if (last == NONE || k - last >= SLICES) {
      Arrays.fill(counts, 0);
      total = 0;
    } else {
      for (long s = last + 1; s <= k; s++) {
        int i = (int) Math.floorMod(s, (long) SLICES);
        total -= counts[i];
        counts[i] = 0;
      }
    }
    last = last == NONE ? k : Math.max(last, k);
  }

  /** Counts a failure in slice {@code k}, the slice now. */
  void add(long k) {
    advanceTo(k);
    counts[(int) Math.floorMod(k, (long) SLICES)]++;
    total++;
  }

  /** The failures of the last second. */
  int count() {
    return total;
  }
}
