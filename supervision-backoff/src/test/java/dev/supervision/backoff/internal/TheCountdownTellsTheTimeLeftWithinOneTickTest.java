package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The countdown of a backoff (no actor, no clock): its tick is the delay / 16, at least 10 ms, in
 * whole milliseconds; after {@code n} ticks the time left it tells is within one tick above the
 * time really left, never below one tick (or the delay) and never above the delay, for any delay
 * and any number of ticks, those after the delay included.
 */
final class TheCountdownTellsTheTimeLeftWithinOneTickTest {

  static final long MS = Duration.ofMillis(1).toNanos();

  @Test
  void theTickIsTheDelayBySixteenAtLeastTenMillisecondsInWholeMilliseconds() {
    assertEquals(10 * MS, new Countdown(Duration.ofMillis(100).toNanos()).tickNanos);
    assertEquals(10 * MS, new Countdown(Duration.ofMillis(3).toNanos()).tickNanos);
    assertEquals(100 * MS, new Countdown(Duration.ofMillis(1600).toNanos()).tickNanos);
    assertEquals(13 * MS, new Countdown(Duration.ofMillis(200).toNanos()).tickNanos);
    assertEquals(225_000 * MS, new Countdown(Duration.ofHours(1).toNanos()).tickNanos);
  }

  @Test
  void theTimeLeftIsWithinOneTickAboveTheTimeReallyLeftForAnyDelayAndTicks() {
    long[] delays = {1, 3 * MS, 10 * MS, 99 * MS + 7, 200 * MS, 1600 * MS, 12_345 * MS + 1};
    for (long delay : delays) {
      Countdown countdown = new Countdown(delay);
      long tick = countdown.tickNanos;
      assertEquals(Duration.ofNanos(delay), countdown.untilRestart(), "before the first tick");
      for (int n = 1; n <= 40; n++) {
        countdown.run();
        long told = countdown.untilRestart().toNanos();
        long elapsed = n * tick;
        String at = "delay " + delay + " ns, " + n + " ticks: " + told;
        assertTrue(told <= delay && told >= Math.min(tick, delay), at);
        if (elapsed < delay) {
          long left = delay - elapsed; // at the n-th tick; up to a tick less until the next
          assertTrue(told >= left && told < left + tick, at);
        }
      }
    }
  }
}
