package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller stepped by hand, one slice at a time, with every value computed from the
 * documented rules. Unless a test says otherwise: slices of 100 ms, probation 100 ms (one slice, so
 * a slice's grants are resolved two slices later), initial rate 100/s (10 per slice), least rate
 * 5/s, cut to 0.9 x goodput, tolerance 10 %, growth 20 %/s (2 % per slice), slow start x sqrt(2)
 * per slice (x 2 per round trip of 200 ms), a window and a calm period of 10 slices.
 */
final class AdaptiveRateControllerStepsTest {

  private static final long S = 100_000_000L;
  private static final long NG = AdaptiveRateController.NOT_GRANTED;

  private final List<String> events = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder =
      new AdaptiveRateController.Listener() {
        @Override
        public void stateChanged(State from, State to, Reason reason, long nowNanos) {
          events.add(nowNanos / S + " " + from + "->" + to + " " + reason);
        }

        @Override
        public void rateChanged(
            double from, double to, double goodput, Reason reason, long nowNanos) {
          events.add(nowNanos / S + " rate " + from + "->" + to + " " + goodput + " " + reason);
        }

        @Override
        public void probe(int probes, long nowNanos) {
          events.add(nowNanos / S + " probe " + probes);
        }
      };

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, recorder);
  }

  private static int take(AdaptiveRateController c, long k, int n) {
    int granted = 0;
    for (int i = 0; i < n && c.tryAcquire(k * S); i++) {
      granted++;
    }
    return granted;
  }

  /** Holds at slice 0 (one failure is enough), probes at slice 1; the probe survives. */
  private AdaptiveRateController rampingAtSlice3(Parameters p, int waiting) {
    AdaptiveRateController c = controller(p.withHoldAfter(1));
    c.onFailure(0, NG);
    assertEquals(1, c.onSlice(S, waiting));
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, waiting);
    c.onSlice(3 * S, waiting);
    assertEquals(State.RAMPING, c.state());
    events.clear();
    return c;
  }

  // ------------------------------------------------------------------ steady

  // ------------------------------------------------------------------ holding

  // ------------------------------------------------------------------ ramping

  @Test
  void failuresAtExactlyTheTolerance_doNotCut() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    c.onFailure(3 * S, 3 * S); // 1 of 10: exactly 10 %
    c.onSlice(4 * S, 1000);
    take(c, 4, 1000);
    c.onSlice(5 * S, 1000);
    assertEquals(100 * Math.sqrt(2), c.rate(), 1e-9);
    assertEquals(1, events.size());
    assertTrue(events.get(0).endsWith(" NaN SLOW_START"), events.get(0));
    assertEquals(Double.NaN, c.goodput());
  }

  @Test
  void aLossCutsAtOnceToTheGoodput_thenGrowsCarefullyFromTheCutsSlice() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 5; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    // 5 survivors in 100 ms: goodput 50/s, rate 0.9 x 50 = 45/s, 4.5 per slice
    assertEquals(4, c.onSlice(4 * S, 1000));
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS"), events);
    assertEquals(50.0, c.goodput());
    assertEquals(45.0, c.rate());
    assertEquals("AdaptiveRateController{state=RAMPING, rate=45.0, goodput=50.0}", c.toString());
    assertEquals(4, take(c, 4, 1000));
    // slice 3 is resolved now, but it was cut for already; 0.5 left + 4.5, capped at 4.5
    assertEquals(4, c.onSlice(5 * S, 1000));
    assertEquals(1, events.size());
    assertEquals(4, take(c, 5, 1000));
    // slice 4 (granted after the cut, actors waiting) is resolved: +2 % per slice
    c.onSlice(6 * S, 1000);
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS", "6 rate 45.0->45.9 NaN GROWTH"), events);
  }

  @Test
  void lateFailuresCutWhenTheirSliceIsResolved() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 5; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    c.onSlice(4 * S, 1000); // cut to 45/s
    assertEquals(4, take(c, 4, 1000));
    c.onSlice(5 * S, 1000);
    assertEquals(4, take(c, 5, 1000));
    c.onFailure(5 * S + 1, 4 * S); // two of slice 4's grants fail, within their probation
    c.onFailure(5 * S + 2, 4 * S);
    c.onSlice(6 * S, 1000); // 2 survivors in 100 ms: 20/s, rate 18/s
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS", "6 rate 45.0->18.0 20.0 LOSS"), events);
    assertEquals(20.0, c.goodput());
  }

  @Test
  void aCutThatChangesNothing_isStillReported_andNeverGoesBelowTheLeastRate() {
    // least rate 50/s
    AdaptiveRateController c =
        rampingAtSlice3(
            new Parameters(
                Duration.ofMillis(100),
                Duration.ofMillis(100),
                100,
                50,
                Double.POSITIVE_INFINITY,
                0.9,
                0.1,
                0.2,
                Duration.ofMillis(100),
                Duration.ofMillis(300),
                10),
            1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 9; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    assertEquals(5, c.onSlice(4 * S, 1000)); // goodput 10/s, 9/s is below 50/s
    assertEquals(5, take(c, 4, 1000));
    for (int i = 0; i < 4; i++) {
      c.onFailure(4 * S, 4 * S);
    }
    c.onSlice(5 * S, 1000);
    assertEquals(List.of("4 rate 100.0->50.0 10.0 LOSS", "5 rate 50.0->50.0 10.0 LOSS"), events);
  }

  @Test
  void aSliceWhoseGrantsAllFailed_holdsAtItsResolution_andHalvesTheNextStartDownToTheLeastRate() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults().withInitialRate(8), 1000);
    assertEquals(0, take(c, 3, 1000)); // 0.8 tokens
    assertEquals(1, c.onSlice(4 * S, 1000));
    assertEquals(1, take(c, 4, 1000));
    c.onFailure(4 * S, 4 * S);
    c.onSlice(5 * S, 1000); // no early cut: nothing survived, nothing to measure
    assertEquals(List.of(), events);
    c.onSlice(6 * S, 1000);
    assertEquals(List.of("6 RAMPING->HOLDING ALL_FAILED"), events);
    assertEquals(1, c.onSlice(7 * S, 1000));
    assertTrue(c.tryAcquire(7 * S));
    c.onSlice(8 * S, 1000);
    c.onSlice(9 * S, 1000);
    assertSame(State.RAMPING, c.state());
    assertEquals(5.0, c.rate()); // 8 / 2 = 4, below the least rate of 5
  }

  @Test
  void aFailureNamingASliceThatGrantedNothing_neitherCutsNorHolds() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    c.onSlice(4 * S, 1000); // nothing granted in slice 4
    c.onFailure(4 * S, 4 * S);
    c.onSlice(5 * S, 1000);
    c.onSlice(6 * S, 1000);
    assertSame(State.RAMPING, c.state());
    assertEquals(1, events.size());
    assertTrue(events.get(0).startsWith("5 rate 100.0->141.42135623730"), events.get(0));
  }

  // ------------------------------------------------------------------ late calls

  @Test
  void constructor_rejectsNulls() {
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> new AdaptiveRateController(null));
    assertEquals("parameters must not be null", e.getMessage());
    e =
        assertThrows(
            NullPointerException.class,
            () -> new AdaptiveRateController(Parameters.defaults(), null));
    assertEquals("listener must not be null", e.getMessage());
  }
}
