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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A call that comes slices late catches up with every slice it missed, in a bounded number of
 * steps: it forgets what fell out of the window, brings no probe forward, and counts a gap as calm
 * only when nobody waited. Driven ({@link Drive}: 100 ms slices) or stepped by hand ({@link
 * Steps}).
 */
final class ControllerLateCallsTest {

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
  void aLateCallForgetsFailuresOlderThanTheWindow() {
    AdaptiveRateController c = controller(Parameters.defaults());
    for (int i = 0; i < 9; i++) {
      c.onFailure(0, NG);
    }
    c.onSlice(100 * S, 0);
    assertTrue(c.isIdle());
    for (int i = 0; i < 9; i++) {
      c.onFailure(100 * S, NG);
    }
    assertSame(State.STEADY, c.state());
  }

  @Test
  void aLateCallDoesNotBringAFutureProbeForward() {
    // the first probe 30 x 100 ms after holding
    AdaptiveRateController c =
        controller(LeaseHolder.share(Parameters.defaults().withHoldAfter(1), 30));
    c.onFailure(0, NG);
    assertEquals(0, c.onSlice(29 * S, 1));
    assertFalse(c.tryAcquire(29 * S));
    assertEquals(1, c.onSlice(30 * S, 1));
  }

  @Test
  void aLateCallWhileActorsWait_doesNotCountTheGapAsCalm() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 5);
    c.onSlice(40 * S, 5); // 37 slices late, actors waiting all along
    for (long k = 41; k <= 49; k++) {
      c.onSlice(k * S, 0);
      assertSame(State.RAMPING, c.state(), "slice " + k);
    }
    c.onSlice(50 * S, 0);
    assertSame(State.STEADY, c.state());
  }

  @Test
  void aLateCallWithNobodyWaiting_stepsFarEnoughToReturnToSteady() {
    // probation 500 ms (5 slices): slice 7's grants are resolved at 13, calm from 14, steady at 23
    AdaptiveRateController c =
        controller(Parameters.defaults().withHoldAfter(1).withProbation(Duration.ofMillis(500)));
    c.onFailure(0, NG);
    assertEquals(1, c.onSlice(S, 1));
    assertTrue(c.tryAcquire(S));
    assertEquals(10, c.onSlice(7 * S, 10));
    assertEquals(10, take(c, 7, 10));
    c.onFailure(7 * S, 7 * S); // one of ten: within the tolerance, but not calm
    c.onSlice(47 * S, 0);
    assertSame(State.STEADY, c.state());
    assertEquals(
        List.of(
            "0 STEADY->HOLDING FAILURES",
            "1 probe 1",
            "7 HOLDING->RAMPING PROBE_SURVIVED",
            "7 rate Infinity->100.0 NaN PROBE_SURVIVED",
            "23 RAMPING->STEADY RECOVERED"),
        events);
  }
}
