package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The controller driven with virtual ticks: 100 ms slices, a resource serving 100 calls per slice. */
final class AdaptiveRateControllerTest {

  private final List<String> log = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder =
      new AdaptiveRateController.Listener() {
        @Override
        public void stateChanged(State from, State to, Reason reason, long nowNanos) {
          log.add(nowNanos / Drive.SLICE + " " + to + " " + reason);
        }

        @Override
        public void rateChanged(
            double from, double to, double goodput, Reason reason, long nowNanos) {
          if (reason == Reason.LOSS) {
            log.add(
                nowNanos / Drive.SLICE
                    + " rate "
                    + Math.round(to)
                    + " goodput "
                    + Math.round(goodput));
          }
        }

        @Override
        public void probe(int probes, long nowNanos) {
          log.add(nowNanos / Drive.SLICE + " probe " + probes);
        }
      };

  @Test
  void aSurvivingProbeOpensWithSlowStart_doublingEveryRoundTrip_thenCutsToTheMeasuredGoodput() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    d.run(1, 20, 0);
    log.clear();
    // the probe at slice 20 survives its probation (resolved at 22); slow start from 100/s = 10 per
    // slice
    assertEquals(
        List.of(1, 0, 10, 10, 14, 20, 28, 40, 56, 80, 113, 90, 90, 91, 93, 95), d.run(20, 36, 100));
    assertEquals(
        List.of("20 probe 6", "22 RAMPING PROBE_SURVIVED", "31 rate 900 goodput 1000"), log);
    assertEquals(1000.0, d.c.goodput(), 1e-9);
  }

  @Test
  void
      afterTheCut_growsByTwoPercentPerSliceWhileActorsWait_andCutsAgainWhenMoreThanTenPercentFail() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    d.run(1, 20, 0);
    d.run(20, 31, 100);
    log.clear();
    List<Integer> grants = d.run(31, 47, 100);
    assertEquals(
        List.of(90, 90, 91, 93, 95, 97, 99, 101, 103, 105, 107, 109, 111, 114, 90, 90), grants);
    assertEquals(List.of("31 rate 900 goodput 1000", "45 rate 900 goodput 1000"), log);
  }

  @Test
  void aSliceWhoseGrantsAllFailHoldsAgain_andHalvesTheNextStartRate() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    d.run(1, 25, 100); // probe at 1 survives, ramping from slice 3
    log.clear();
    d.run(25, 28, 0); // the resource is down again
    assertEquals(State.HOLDING, d.c.state());
    assertEquals(List.of("27 HOLDING ALL_FAILED"), log);
    log.clear();
    List<Integer> up = d.run(28, 34, 100);
    assertEquals(List.of(1, 0, 5, 5, 7, 10), up); // ramping again from 50/s
  }

  @Test
  void returnsToSteadyAfterOneCalmSecond_andThenLetsEveryRestartPassAtOnce() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 50).allFailAtZero();
    d.run(1, 40, 100);
    assertEquals(0, d.waiting);
    assertEquals(State.STEADY, d.c.state());
    assertTrue(d.c.isIdle());
    d.waiting = 9;
    for (int i = 0; i < 9; i++) {
      d.c.onFailure(40 * Drive.SLICE, AdaptiveRateController.NOT_GRANTED);
    }
    assertEquals(9, d.slice(40, 100)); // nine failures in one second stay below the hold threshold
  }

  @Test
  void aLateCallCatchesUpWithEverySliceItMissed() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    d.c.onSlice(10 * Drive.SLICE, d.waiting); // ten slices at once: the first probe is due
    assertEquals(1, d.c.available());
    d.c.onSlice(1_000_000 * Drive.SLICE, d.waiting); // a long gap costs a bounded number of steps
    assertEquals(State.HOLDING, d.c.state());
  }

  @Test
  void parameters_nameTheRejectedValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Parameters.defaults().withInitialRate(0));
    assertEquals("initialRate must be finite and > 0 but was 0.0", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Parameters.defaults().withProbation(Duration.ZERO));
    assertEquals("probation must be > 0 but was PT0S", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Parameters.defaults().withHoldAfter(0));
    assertEquals("holdAfter must be >= 1 but was 0", e.getMessage());
    assertThrows(NullPointerException.class, () -> Parameters.defaults().withProbation(null));
  }
}
