package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * A pacer asked on a real clock (quantum 0, as a gate on Pekko's default scheduler drives it):
 * beyond its burst, no two permits go closer than {@code 1 / rate}, however late, early or bunched
 * the calls come; that is, permits {@code i} and {@code i + burst} are at least one interval apart.
 * Counting ticks (quantum one tick), a permit taken late keeps the schedule and the next one may
 * follow sooner: what a limiter without burst rejects.
 */
final class APacerOnAClockKeepsItsIntervalHoweverLateItIsAskedTest {

  private static final long MS = 1_000_000L;

  /**
   * Calls at every tick of a scheduler whose ticks come late by any amount (up to 20 ticks) and are
   * caught up back to back, as Pekko's default scheduler runs them; every call takes what it may.
   */
  @Property(tries = 500)
  boolean beyondTheBurst_noTwoPermitsCloserThanTheInterval(
      @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 20_000) Integer> lateMicros,
      @ForAll @IntRange(min = 1, max = 5_000) int ratePerSecond,
      @ForAll @IntRange(min = 1, max = 5) int burst,
      @ForAll @IntRange(min = 1, max = 10) int tickMillis) {
    Pacer pacer = Pacer.of(ratePerSecond, burst, 0);
    List<Long> grants = new ArrayList<>();
    long now = 0;
    for (int k = 0; k < lateMicros.size(); k++) {
      now = Math.max(now, k * tickMillis * MS + lateMicros.get(k) * 1_000L);
      while (pacer.tryAcquire(now) && grants.size() < 100_000) {
        grants.add(now);
      }
    }
    double interval = 1e9 / ratePerSecond;
    for (int i = 0; i + burst < grants.size(); i++) {
      if (grants.get(i + burst) - grants.get(i) < interval - 1) { // 1 ns of rounding slack
        return false;
      }
    }
    return true;
  }

  @Test
  void aPermitAtALateTickMovesTheSchedule_theNextWaitsAWholeInterval() {
    // 200 per second, no burst: one permit every 5 ms
    Pacer onClock = Pacer.of(200, 1, 0);
    assertTrue(onClock.tryAcquire(0));
    assertTrue(onClock.tryAcquire(5 * MS + 900_000)); // a tick 0.9 ms late
    assertFalse(onClock.tryAcquire(10 * MS)); // the next tick on time: 4.1 ms later, too soon
    assertTrue(onClock.tryAcquire(10 * MS + 900_000));

    Pacer countingTicks = Pacer.of(200, 1, MS);
    assertTrue(countingTicks.tryAcquire(0));
    assertTrue(countingTicks.tryAcquire(5 * MS + 900_000));
    assertTrue(countingTicks.tryAcquire(10 * MS)); // kept the schedule: 4.1 ms after the last
  }
}
