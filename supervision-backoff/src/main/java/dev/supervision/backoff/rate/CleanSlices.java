package dev.supervision.backoff.rate;

/**
 * The successes of a ramp's clean slices (within the tolerance, with actors waiting) over the last
 * second: the rate the resource has sustained, below which a cut does not go. Not thread-safe.
 */
final class CleanSlices {

  private static final long NONE = Long.MIN_VALUE;

  private final int[] successes = new int[FailureWindow.SLICES];
  private final long[] slices = new long[FailureWindow.SLICES];

  CleanSlices() {
    forget(Long.MAX_VALUE);
  }

  void add(long slice, int successes) {
    int i = (int) Math.floorMod(slice, (long) slices.length);
    this.successes[i] = successes;
    this.slices[i] = slice;
  }

  /** The most successes of a slice after {@code from}, 0 if none. */
  int best(long from) {
    int best = 0;
    for (int i = 0; i < slices.length; i++) {
      if (slices[i] != NONE && slices[i] > from) {
        best = Math.max(best, successes[i]);
      }
    }
    return best;
  }

  /** Forgets the slices before {@code slice}. */
  void forget(long slice) {
    for (int i = 0; i < slices.length; i++) {
      if (slices[i] < slice) {
        slices[i] = NONE;
      }
    }
  }
}
