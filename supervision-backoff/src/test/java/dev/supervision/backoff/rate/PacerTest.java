package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The pacer: exactly its burst after a quiet period, never a permit before it is due, at most
 * {@code burst + rate * (d + quantum)} in any interval {@code d}, and the whole rate for a driver
 * that calls every quantum, whatever the rate, burst and quantum.
 */
final class PacerTest {

  private static final long MS = 1_000_000L;

  @Test
  void afterAQuietPeriod_exactlyTheBurstGoesAtOnce_thenOnePermitPerInterval() {
    Pacer p = Pacer.of(10, 3, 10 * MS);
    for (int i = 0; i < 3; i++) {
      assertTrue(p.tryAcquire(0), "permit " + i);
    }
    assertFalse(p.tryAcquire(0));
    assertEquals(100 * MS, p.nextAt(0)); // the fourth is due at 300 ms, 2 intervals ahead
    assertFalse(p.tryAcquire(99 * MS));
    assertTrue(p.tryAcquire(100 * MS));
    assertFalse(p.tryAcquire(100 * MS));
    assertEquals(200 * MS, p.nextAt(150 * MS));
  }

  @Test
  void aPermitTakenWithinOneQuantumAfterItWasDue_keepsTheSchedule() {
    Pacer p = Pacer.of(300, 1, 10 * MS); // one permit every 3.33 ms, a timer every 10 ms
    int granted = 0;
    for (long t = 0; t <= 1000 * MS; t += 10 * MS) {
      while (p.tryAcquire(t)) {
        granted++;
      }
    }
    assertEquals(301, granted); // 300 per second and the one at 0: no rate lost to the timer
  }

  @Test
  void aTinyRate_givesItsBurst_thenNothingForTheWholeTimeLine() {
    for (double tiny : new double[] {1e-11, 5e-300, Double.MIN_VALUE}) {
      Pacer p = Pacer.of(tiny, 2, 10 * MS);
      assertTrue(p.tryAcquire(0), "first of the burst at " + tiny);
      assertTrue(p.tryAcquire(0), "second of the burst at " + tiny);
      assertFalse(p.tryAcquire(0), "nothing more at " + tiny);
      assertFalse(p.tryAcquire(1_000_000 * MS));
      assertEquals(Long.MAX_VALUE, p.nextAt(1));
      assertEquals(2, p.maxIn(1_000_000 * MS));
      assertEquals(tiny, p.rate());
      p.setRate(Double.MIN_VALUE);
      p.setBurst(1);
      assertFalse(p.tryAcquire(2_000_000 * MS), "a new tiny rate still paces at " + tiny);
      Pacer once = Pacer.of(Double.MIN_VALUE, 1, 0);
      assertTrue(once.tryAcquire(0));
      assertFalse(once.tryAcquire(0));
    }
  }

  @Test
  void aPermitTakenLongAfterItWasDue_startsTheScheduleAgain() {
    Pacer p = Pacer.of(10, 1, 10 * MS);
    assertTrue(p.tryAcquire(0));
    assertTrue(p.tryAcquire(5_000 * MS)); // idle for 5 s: one permit, not 50
    assertFalse(p.tryAcquire(5_000 * MS));
    assertEquals(5_100 * MS, p.nextAt(5_000 * MS));
    assertTrue(p.isFull(6_000 * MS));
    assertFalse(p.isFull(5_100 * MS));
  }

  @Test
  void aPermitGivenBackIsAvailableAgain_butAFullPacerStaysAtItsBurst() {
    Pacer p = Pacer.of(10, 2, 0);
    assertTrue(p.tryAcquire(0));
    assertTrue(p.tryAcquire(0));
    assertFalse(p.tryAcquire(0));
    p.giveBack(0);
    assertTrue(p.tryAcquire(0));
    assertFalse(p.tryAcquire(0));
    Pacer full = Pacer.of(10, 2, 0);
    full.giveBack(0);
    assertTrue(full.tryAcquire(0));
    assertTrue(full.tryAcquire(0));
    assertFalse(full.tryAcquire(0));
  }

  @Test
  void anUnlimitedRateNeverWaits_andANewRateKeepsThePermitsAlreadyTaken() {
    Pacer p = Pacer.of(Double.POSITIVE_INFINITY, 1, MS);
    for (int i = 0; i < 1000; i++) {
      assertTrue(p.tryAcquire(0));
    }
    assertEquals(Long.MAX_VALUE, p.maxIn(MS));
    p.setRate(10);
    assertTrue(p.tryAcquire(0));
    assertFalse(p.tryAcquire(0));
    p.setRate(20); // the next is due 100 ms after the last, as scheduled at 10 per second
    assertEquals(100 * MS, p.nextAt(0));
    assertTrue(p.tryAcquire(100 * MS));
    assertEquals(150 * MS, p.nextAt(100 * MS));
  }

  @Test
  void settingsOutOfRangeAreRejected_namingTheParameter() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Pacer.of(0, 1, 0))
            .getMessage()
            .startsWith("ratePerSecond must be > 0"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Pacer.of(1, 0.5, 0))
            .getMessage()
            .startsWith("burst must be finite and >= 1"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Pacer.of(1, 1, -1))
            .getMessage()
            .startsWith("quantumNanos must be >= 0"));
    assertThrows(IllegalArgumentException.class, () -> Pacer.of(Double.NaN, 1, 0));
  }

  @Test
  void theBoundOfAnInterval_isBurstPlusRateTimesIntervalAndQuantum() {
    Pacer p = Pacer.of(1000, 5, MS);
    assertEquals(1 + 1 + 4, p.maxIn(0)); // one quantum's permit plus the burst
    assertEquals(1 + 11 + 4, p.maxIn(10 * MS));
  }

  /**
   * A driver calls at random times (gaps of 0 to 3 quanta, with a long pause now and then) and
   * takes up to {@code demand} permits per call: no interval between two grants holds more than
   * {@link Pacer#maxIn}, no grant comes before it was due ({@code burst - 1} intervals ahead), and
   * the bound itself is at most {@code burst + rate * (d + quantum)}.
   */
  @Property(tries = 500)
  boolean anyIntervalHoldsAtMostBurstPlusRateTimesIntervalAndQuantum(
      @ForAll @IntRange(min = 1, max = 200_000) int rate,
      @ForAll @IntRange(min = 1, max = 100) int burst,
      @ForAll @IntRange(min = 0, max = 20) int quantumMillis,
      @ForAll @Size(min = 1, max = 300) List<@IntRange(min = 0, max = 1000) Integer> gaps,
      @ForAll @IntRange(min = 1, max = 500) int demand) {
    long quantum = quantumMillis * MS;
    Pacer p = Pacer.of(rate, burst, quantum);
    List<Long> times = new ArrayList<>();
    long now = 0;
    for (int gap : gaps) {
      // mostly within three quanta (the timer), sometimes a long pause
      now += gap > 950 ? gap * 10 * MS : (gap % 4) * Math.max(quantum, MS) + gap % 3;
      for (int i = 0; i < demand && p.tryAcquire(now); i++) {
        times.add(now);
        if (times.size() > 200_000) {
          return false; // a pacer that never says no
        }
      }
    }
    for (int i = 0; i < times.size(); i++) {
      for (int j = i; j < times.size() && j < i + 2_000; j++) {
        long d = times.get(j) - times.get(i);
        if (j - i + 1 > p.maxIn(d)) {
          return false;
        }
      }
    }
    double bound = burst + rate * ((double) quantum / 1e9);
    return p.maxIn(0) <= Math.floor(bound + 1e-9) + 1;
  }

  /** A driver that calls every quantum while permits wait gets the whole rate, within one permit. */
  @Property(tries = 300)
  boolean aDriverThatCallsEveryQuantum_getsTheWholeRate(
      @ForAll @IntRange(min = 1, max = 100_000) int rate,
      @ForAll @IntRange(min = 1, max = 100) int burst,
      @ForAll @IntRange(min = 1, max = 20) int quantumMillis) {
    long quantum = quantumMillis * MS;
    Pacer p = Pacer.of(rate, burst, quantum);
    long span = 2_000 * MS;
    long granted = 0;
    for (long t = 0; t <= span; t += quantum) {
      while (p.tryAcquire(t)) {
        granted++;
      }
    }
    long last = span / quantum * quantum;
    double expected = burst + rate * (last / 1e9); // the burst, then the rate
    return granted >= Math.floor(expected) - 1 && granted <= Math.ceil(expected) + 1;
  }

  @Test
  void drop_drainsAnAvailablePacer_itsNextPermitOneIntervalLater() {
    Pacer p = Pacer.of(100, 5, MS); // 10 ms apart, burst 5
    p.drop(0); // full: five would go at once; none after the drop
    assertFalse(p.tryAcquire(0));
    assertFalse(p.tryAcquire(10 * MS - 2));
    assertTrue(p.tryAcquire(10 * MS));
    assertFalse(p.tryAcquire(10 * MS));
  }

  @Test
  void drop_changesNothingWhenNoPermitIsAvailable() {
    Pacer p = Pacer.of(100, 1, MS);
    assertTrue(p.tryAcquire(0));
    p.drop(5 * MS); // the next one is due at 10 ms anyway
    assertTrue(p.tryAcquire(10 * MS));
  }

  /** A drop is as if the bucket had just been drained: in any interval, at most {@link Pacer#maxIn}. */
  @Property(tries = 300)
  boolean dropsKeepTheBoundOfAnyInterval(
      @ForAll @IntRange(min = 1, max = 2_000) int rate,
      @ForAll @IntRange(min = 1, max = 20) int burst,
      @ForAll @IntRange(min = 0, max = 10) int quantumMillis,
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 0, max = 30) Integer> gaps,
      @ForAll @IntRange(min = 1, max = 7) int dropEvery) {
    Pacer p = Pacer.of(rate, burst, quantumMillis * MS);
    List<Long> taken = new ArrayList<>();
    long now = 0;
    int i = 0;
    for (int gap : gaps) {
      now += gap * MS / 10;
      if (++i % dropEvery == 0) {
        p.drop(now);
      }
      while (p.tryAcquire(now)) {
        taken.add(now);
      }
    }
    for (int a = 0; a < taken.size(); a++) {
      for (int b = a; b < taken.size(); b++) {
        if (b - a + 1 > p.maxIn(taken.get(b) - taken.get(a))) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void itShowsItsSettings_andANewBurstIsTheBurstAfterAQuietPeriod() {
    Pacer p = Pacer.of(10, 3, 5 * MS);
    assertEquals(10.0, p.rate());
    assertEquals(3.0, p.burst());
    assertEquals(5 * MS, p.quantumNanos());
    assertEquals("Pacer{rate=10.0/s, burst=3.0, quantum=5000000 ns}", p.toString());
    p.setBurst(2);
    assertEquals(2.0, p.burst());
    assertTrue(p.tryAcquire(0));
    assertTrue(p.tryAcquire(0));
    assertFalse(p.tryAcquire(0), "a burst of 2, not 3");
    assertEquals(100 * MS, p.nextAt(0));
  }

  @Test
  void aNewBurstOrRateOutOfRange_isRejected_andTheEdgesAreAccepted() {
    Pacer p = Pacer.of(1, 1, 0);
    assertEquals(
        "burst must be finite and >= 1 but was 0.5",
        assertThrows(IllegalArgumentException.class, () -> p.setBurst(0.5)).getMessage());
    assertEquals(
        "burst must be finite and >= 1 but was Infinity",
        assertThrows(IllegalArgumentException.class, () -> p.setBurst(Double.POSITIVE_INFINITY))
            .getMessage());
    assertEquals(
        "ratePerSecond must be > 0 but was 0.0",
        assertThrows(IllegalArgumentException.class, () -> p.setRate(0)).getMessage());
    assertEquals(
        "rate must be >= 0 but was NaN",
        assertThrows(IllegalArgumentException.class, () -> p.follow(Double.NaN, MS, false))
            .getMessage());
    assertEquals(
        "rate must be >= 0 but was -1.0",
        assertThrows(IllegalArgumentException.class, () -> p.follow(-1, MS, true)).getMessage());
    assertEquals(
        "tickNanos must be >= 0 but was -1",
        assertThrows(IllegalArgumentException.class, () -> p.follow(10, -1, false)).getMessage());
    assertEquals(1.0, p.burst(), "a rejected burst leaves it as it was");
    assertEquals(1.0, p.rate());
    assertEquals(0, p.quantumNanos());
  }

  @Test
  void anUnlimitedPacer_staysFull_andAnythingGivenBackChangesNothing() {
    Pacer p = Pacer.of(Double.POSITIVE_INFINITY, 1, MS);
    assertTrue(p.tryAcquire(5 * MS));
    p.giveBack(5 * MS);
    assertTrue(p.available(5 * MS));
    assertEquals(5 * MS, p.nextAt(5 * MS));
    assertTrue(p.isFull(5 * MS));
  }

  @Test
  void aPermitGivenBackAfterItsDueTime_changesNothing() {
    Pacer p = Pacer.of(10, 1, 0);
    assertTrue(p.tryAcquire(0)); // the next is due at 100 ms
    p.giveBack(100 * MS); // not after now: nothing to move back
    assertTrue(p.tryAcquire(100 * MS));
    assertFalse(p.tryAcquire(100 * MS));
    assertEquals(200 * MS, p.nextAt(100 * MS));
    p.giveBack(150 * MS); // due at 200 ms: moved back to 150 ms, not to 100 ms
    assertFalse(p.available(149 * MS));
    assertTrue(p.available(150 * MS));
  }
}
