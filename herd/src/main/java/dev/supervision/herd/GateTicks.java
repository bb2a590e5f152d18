package dev.supervision.herd;

/**
 * The tick arithmetic of the exact gate models (the library's budget gates decide at the
 * scheduler's ticks), and what the models share about their queues.
 */
final class GateTicks {

  private GateTicks() {}

  /**
   * The tick at which the library's budget gates grant in a run of this scenario: the scheduler's
   * resolution, 1 ms behind a rate limiter (real mode sets {@code pekko.scheduler.tick-duration = 1ms}
   * then, as the budget documentation recommends), Pekko's default of 10 ms otherwise.
   *
   * @param s the scenario
   * @return the tick in nanoseconds
   */
  static long gateTickNanos(HerdScenario s) {
    return s.resource().limited() ? 1_000_000L : 10_000_000L;
  }

  /** The last tick at or before a time. */
  static long floorTick(long nanos, long tick) {
    return Math.floorDiv(nanos, tick) * tick;
  }

  /** The first tick at or after a time; {@code Long.MAX_VALUE} for a time that is never. */
  static long ceilTick(long nanos, long tick) {
    return nanos >= Long.MAX_VALUE - tick ? Long.MAX_VALUE : -Math.floorDiv(-nanos, tick) * tick;
  }

  /**
   * Takes the waiting cells that {@code moved} selects out of a gate's queue, in their order (their
   * shard moved to another node).
   */
  static java.util.List<Integer> evict(
      java.util.Collection<Integer> waiting, java.util.function.IntPredicate moved) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    waiting.removeIf(
        cell -> {
          if (moved.test(cell)) {
            out.add(cell);
            return true;
          }
          return false;
        });
    return out;
  }
}
