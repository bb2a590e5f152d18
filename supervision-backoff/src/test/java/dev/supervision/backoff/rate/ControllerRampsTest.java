package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.NG;
import static dev.supervision.backoff.rate.Steps.S;
import static dev.supervision.backoff.rate.Steps.take;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A surviving probe starts the ramp at the initial rate (times its share) with an empty bucket;
 * slow start doubles the rate every round trip for slices that granted and left actors waiting;
 * after a cut the rate grows by 2 % per slice; one calm second returns to steady. Driven ({@link
 * Drive}: 100 ms slices, a resource serving 100 calls per slice) or stepped by hand ({@link Steps}).
 */
final class ControllerRampsTest {

  private final List<String> log = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder = Drive.log(log);

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  private AdaptiveRateController rampingAtSlice3(Parameters p, int waiting) {
    return Steps.rampingAtSlice3(p, waiting, events);
  }

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
  void rampingStartsWithAnEmptyBucket_evenWhenTheSteadyBucketHeldAToken() {
    // ceiling 5/s: the steady bucket holds 1 token; ramping at 5/s adds 0.5 per slice
    AdaptiveRateController c = controller(Parameters.defaults().withMaxRate(5).withHoldAfter(1));
    c.onFailure(0, NG);
    c.onSlice(S, 3);
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, 3);
    assertEquals(0, c.onSlice(3 * S, 3));
    assertSame(State.RAMPING, c.state());
    assertEquals(5.0, c.rate());
    assertEquals(1, c.onSlice(4 * S, 3));
  }

  @Test
  void aShareOfTwo_startsTheRampAtHalfTheInitialRate() {
    AdaptiveRateController c =
        controller(LeaseHolder.share(Parameters.defaults().withHoldAfter(1), 2));
    c.onFailure(0, NG);
    assertEquals(0, c.onSlice(S, 1)); // the first probe 2 x 100 ms after holding
    assertEquals(1, c.onSlice(2 * S, 1));
    assertTrue(c.tryAcquire(2 * S));
    assertEquals(5, c.onSlice(4 * S, 1));
    assertEquals(50.0, c.rate());
  }

  @Test
  void ramping_grantsNoMoreThanTheBucketHolds() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, c.available());
    assertEquals(10, take(c, 3, 10));
    assertFalse(c.tryAcquire(3 * S));
    assertEquals(0, c.available());
  }

  @Test
  void slowStartGrowsOnlyForSlicesThatGrantedAndLeftActorsWaiting() {
    // initial rate 5/s: 0.5 tokens per slice, so slice 3 grants nothing although actors wait
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults().withInitialRate(5), 3);
    assertEquals(0, take(c, 3, 3));
    assertEquals(1, c.onSlice(4 * S, 3));
    assertEquals(1, take(c, 4, 3));
    c.onSlice(5 * S, 3); // slice 3 resolved: it granted nothing, no growth
    assertEquals(List.of(), events);
    c.onSlice(6 * S, 3); // slice 4 resolved: one grant, actors waited
    assertEquals(List.of("6 rate 5.0->7.0710678118654755 NaN SLOW_START"), events);
  }

  @Test
  void noGrowthForASliceThatLeftNobodyWaiting() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 5);
    assertEquals(5, take(c, 3, 5));
    c.onSlice(4 * S, 0); // slice 3 served everyone
    c.onSlice(5 * S, 3); // slice 3 resolved; actors wait again from slice 4 on
    assertEquals(100.0, c.rate());
    assertEquals(List.of(), events);
    assertEquals(10, c.available());
  }

  @Test
  void slowStartDoublesPerRoundTrip_andTellsItsReason() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    assertEquals(10, c.onSlice(4 * S, 1000));
    assertEquals(10, take(c, 4, 1000));
    assertEquals(14, c.onSlice(5 * S, 1000));
    assertEquals(100 * Math.sqrt(2), c.rate(), 1e-9);
    assertEquals(1, events.size());
    assertTrue(events.get(0).startsWith("5 rate 100.0->141.42135623730"), events.get(0));
    assertTrue(events.get(0).endsWith(" NaN SLOW_START"), events.get(0));
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
  void oneCalmSecondReturnsToSteady_atTheCeiling() {
    // ceiling 200/s; ramping at 100/s; nobody waits from slice 3 on
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults().withMaxRate(200), 0);
    for (long k = 4; k <= 11; k++) {
      c.onSlice(k * S, 0);
      assertSame(State.RAMPING, c.state(), "slice " + k);
    }
    assertEquals(10, c.available());
    c.onSlice(12 * S, 0);
    assertEquals(List.of("12 RAMPING->STEADY RECOVERED"), events);
    assertEquals(200.0, c.rate());
    assertEquals(20, c.onSlice(13 * S, 0));
  }
}
