package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a cluster's coordination makes a node's controller do: not probe, resume, rebalance. */
final class AdaptiveRateControllerCoordinationTest {

  private static final long SLICE = Drive.SLICE;

  private static AdaptiveRateController holding(List<Reason> reasons) {
    AdaptiveRateController c =
        new AdaptiveRateController(
            Parameters.defaults(),
            new AdaptiveRateController.Listener() {
              @Override
              public void stateChanged(State from, State to, Reason reason, long nowNanos) {
                reasons.add(reason);
              }
            });
    for (int i = 0; i < 10; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    assertEquals(State.HOLDING, c.state());
    return c;
  }

  @Test
  void aNodeThatMayNotProbe_grantsNothingWhileHolding() {
    AdaptiveRateController c = holding(new ArrayList<>());
    c.coordinate(0.5, 1, false);
    for (long k = 1; k <= 50; k++) {
      c.onSlice(k * SLICE, 10);
      assertEquals(0, c.available());
      assertEquals(false, c.tryAcquire(k * SLICE), "slice " + k);
    }
    c.coordinate(0.5, 1, true);
    c.onSlice(51 * SLICE, 10);
    assertEquals(true, c.tryAcquire(51 * SLICE), "the probe, once allowed");
  }

  @Test
  void resume_startsRampingAtTheShareOfTheInitialRate_withoutAProbe() {
    List<Reason> reasons = new ArrayList<>();
    AdaptiveRateController c = holding(reasons);
    c.coordinate(0.25, 1, false);
    c.resume(3 * SLICE);
    assertEquals(State.RAMPING, c.state());
    assertEquals(Reason.RESUMED, reasons.get(reasons.size() - 1));
    assertEquals(100 * 0.25, c.rate(), 1e-9);
    c.resume(4 * SLICE); // not holding: nothing
    assertEquals(2, reasons.size());
  }

  @Test
  void coordinate_rejectsAShareOutsideZeroToOne() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults());
    assertEquals(
        "share must be in (0, 1] but was 0.0",
        assertThrows(IllegalArgumentException.class, () -> c.coordinate(0, 1, true)).getMessage());
    assertEquals(
        "probeMembers must be >= 1 but was 0",
        assertThrows(IllegalArgumentException.class, () -> c.coordinate(1, 0, true)).getMessage());
  }

  private static AdaptiveRateController ramping(List<Reason> reasons) {
    AdaptiveRateController c = holding(reasons);
    c.coordinate(1, 1, false);
    c.resume(SLICE);
    assertEquals(State.RAMPING, c.state());
    return c;
  }

  @Test
  void rebalance_onlyRaisesTheRate_whileRamping() {
    List<Reason> reasons = new ArrayList<>();
    AdaptiveRateController steady = new AdaptiveRateController(Parameters.defaults());
    steady.rebalance(500, 0);
    assertEquals(Double.POSITIVE_INFINITY, steady.rate(), "steady: nothing");
    AdaptiveRateController c = ramping(reasons);
    assertEquals(100, c.rate(), 1e-9);
    c.rebalance(40, 2 * SLICE);
    assertEquals(100, c.rate(), 1e-9, "a lower part never lowers the rate");
    c.rebalance(Double.NaN, 2 * SLICE);
    assertEquals(100, c.rate(), 1e-9);
    c.rebalance(250, 2 * SLICE);
    assertEquals(250, c.rate(), 1e-9);
    c.onSlice(3 * SLICE, 1000);
    assertEquals(25, c.available(), "the bucket holds one slice of the raised rate");
  }

  @Test
  void rebalance_neverRaisesAboveTheShareOfTheCeiling() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults().withMaxRate(400));
    for (int i = 0; i < 10; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    c.coordinate(0.5, 1, false);
    c.resume(SLICE);
    c.rebalance(1000, 2 * SLICE);
    assertEquals(200, c.rate(), 1e-9);
  }

  @Test
  void stayRamping_keepsACalmRampFromReturningToSteady() {
    AdaptiveRateController c = ramping(new ArrayList<>());
    c.coordinate(1, 1, false, true);
    for (long k = 2; k <= 40; k++) {
      c.onSlice(k * SLICE, 0);
    }
    assertEquals(State.RAMPING, c.state(), "while the cluster ramps");
    c.coordinate(1, 1, false, false);
    for (long k = 41; k <= 60; k++) {
      c.onSlice(k * SLICE, 0);
    }
    assertEquals(State.STEADY, c.state(), "a calm second after the cluster's ramp ended");
  }

  @Test
  void resume_whileSteady_joinsTheRampAtTheShareOfTheInitialRate() {
    List<Reason> reasons = new ArrayList<>();
    AdaptiveRateController c =
        new AdaptiveRateController(
            Parameters.defaults(),
            new AdaptiveRateController.Listener() {
              @Override
              public void stateChanged(State from, State to, Reason reason, long nowNanos) {
                reasons.add(reason);
              }
            });
    c.coordinate(0.1, 1, false, true);
    c.resume(SLICE);
    assertEquals(State.RAMPING, c.state());
    assertEquals(List.of(Reason.RESUMED), reasons);
    assertEquals(10, c.rate(), 1e-9);
    c.onSlice(2 * SLICE, 500);
    assertEquals(1, c.available(), "a moved herd restarts at the rate, not at once");
  }

  /** Holds at slice 0 as one of ten members: its first probe is ten slices away. */
  private static AdaptiveRateController holdingAsOneOfTen() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults());
    c.setShare(10);
    for (int i = 0; i < 10; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    assertEquals(State.HOLDING, c.state());
    return c;
  }

  @Test
  void aLowerProbeFactorWhileHolding_bringsTheNextProbeForwardInProportion() {
    AdaptiveRateController c = holdingAsOneOfTen();
    c.onSlice(2 * SLICE, 10);
    // 8 slices left at factor 10; at factor 5 half of them: the probe is due at slice 6
    c.coordinate(0.1, 5, true);
    c.onSlice(5 * SLICE, 10);
    assertEquals(0, c.available());
    c.onSlice(6 * SLICE, 10);
    assertEquals(1, c.available());
    assertEquals(true, c.tryAcquire(6 * SLICE));
  }

  @Test
  void aProbeAlreadyDue_staysDueWhenTheFactorFalls_andAHigherFactorLeavesTheWaitAsItWas() {
    AdaptiveRateController due = holdingAsOneOfTen();
    due.onSlice(10 * SLICE, 10);
    assertEquals(1, due.available());
    due.coordinate(0.1, 1, true);
    assertEquals(1, due.available(), "not moved to the next slice");
    AdaptiveRateController higher = holdingAsOneOfTen();
    higher.onSlice(2 * SLICE, 10);
    higher.coordinate(0.05, 20, true);
    higher.onSlice(9 * SLICE, 10);
    assertEquals(0, higher.available());
    higher.onSlice(10 * SLICE, 10);
    assertEquals(1, higher.available(), "the wait already scheduled is kept");
  }

  /** Records the reasons of a controller's state and rate changes. */
  private static final class Reasons implements AdaptiveRateController.Listener {
    final List<Reason> states = new ArrayList<>();
    final List<Reason> rates = new ArrayList<>();

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      states.add(reason);
    }

    @Override
    public void rateChanged(double from, double to, double goodput, Reason reason, long nowNanos) {
      rates.add(reason);
    }

    void clear() {
      states.clear();
      rates.clear();
    }
  }

  /**
   * 100 actors fail at 0 (held by failures); resumed at slice 1 with the resource serving
   * everything, down again from slice 10 (every grant of a slice fails: held again), resumed at
   * slice 20 with the resource back. Returns the drive, at slice 20, the reasons cleared.
   */
  private static Drive heldByAnAllFailedSlice(AdaptiveRateController c, Reasons reasons) {
    Drive d = new Drive(c, 100).allFailAtZero();
    c.resume(SLICE);
    d.run(2, 10, 100);
    assertEquals(Reason.SLOW_START, reasons.rates.get(1), "held by failures: slow start");
    d.run(10, 20, 0);
    assertEquals(Reason.ALL_FAILED, reasons.states.get(reasons.states.size() - 1));
    reasons.clear();
    c.resume(20 * SLICE);
    return d;
  }

  @Test
  void aCoordinatedNodeHeldBecauseASliceAllFailed_rampsAgainWithoutSlowStart() {
    Reasons reasons = new Reasons();
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults(), reasons);
    c.coordinate(0.1, 1, false, true);
    Drive d = heldByAnAllFailedSlice(c, reasons);
    assertEquals(List.of(Reason.RESUMED), reasons.states);
    assertEquals(5, c.rate(), 1e-9, "the halved start rate, one tenth of 100 a second halved");
    d.run(21, 31, 100);
    List<Reason> rates = new ArrayList<>(List.of(Reason.RESUMED));
    rates.addAll(Collections.nCopies(9, Reason.GROWTH));
    assertEquals(rates, reasons.rates, "every slice after the first, none doubling");
    assertEquals(5 * Math.pow(1.02, 9), c.rate(), 1e-9, "20 % a second, not doubling");
    c.rebalance(40, 31 * SLICE);
    assertEquals(40, c.rate(), 1e-9, "the coordination raises it to its part");
  }

  @Test
  void aNodeThatLearnsAlone_slowStartsAgainAfterAnAllFailedSlice() {
    Reasons reasons = new Reasons();
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults(), reasons);
    c.setShare(10); // probes at ten times the interval: not coordinated
    Drive d = heldByAnAllFailedSlice(c, reasons);
    d.run(21, 31, 100);
    assertEquals(Reason.SLOW_START, reasons.rates.get(1));
    assertTrue(c.rate() > 5 * Math.pow(1.02, 10) * 2, "doubling every round trip: " + c.rate());
  }
}
