package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.NG;
import static dev.supervision.backoff.rate.Steps.S;
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
 * A holding controller probes one restart at a time, at intervals that double up to three first
 * probes (300 ms, times its share); a probe survives its whole probation, counted from its start
 * ({@code tryGrant} and {@code onStarted}; {@code tryAcquire} starts at once), or fails; a probe
 * that never starts is given up after {@link AdaptiveRateController#PROBE_START_TIMEOUT} and the
 * next probe follows as after a failure. Driven ({@link Drive}: 100 ms slices, a resource serving
 * 100 calls per slice) or stepped by hand ({@link Steps}; hold after 1 failure where a test says
 * so).
 */
final class ControllerProbesTest {

  private final List<String> log = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder = Drive.log(log);

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  /** A controller holding since slice 0: its first probe is due at slice 1. */
  private static AdaptiveRateController holding() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults().withHoldAfter(1));
    c.onSlice(0, 5);
    c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    assertEquals(State.HOLDING, c.state());
    return c;
  }

  @Test
  void holdsWhileTheGroupFails_probingOnceAtIntervalsThatDoubleUpTo300ms() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    assertEquals(State.HOLDING, d.c.state());
    assertEquals(List.of(1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), d.run(1, 20, 0));
    assertEquals(
        List.of(
            "0 HOLDING FAILURES",
            "1 probe 1",
            "4 probe 2",
            "8 probe 3",
            "12 probe 4",
            "16 probe 5"),
        log);
  }

  @Test
  void aShareOfThreeProbesThreeTimesLessOften() {
    AdaptiveRateController c =
        controller(LeaseHolder.share(Parameters.defaults().withHoldAfter(1), 3));
    c.onFailure(0, NG);
    assertEquals(0, c.onSlice(2 * S, 1));
    assertEquals(1, c.onSlice(3 * S, 1));
    assertTrue(c.tryAcquire(3 * S));
    c.onFailure(3 * S, 3 * S);
    // resolved at 4: 3 x min(300 ms, 100 ms x 2) = 600 ms
    assertEquals(0, c.onSlice(9 * S, 1));
    assertEquals(1, c.onSlice(10 * S, 1));
  }

  @Test
  void aProbeSurvivesOnlyAfterItsWholeProbation_roundedUpToSlices() {
    // 150 ms is 2 slices: the probe of slice 1 is resolved at the start of slice 4
    AdaptiveRateController c =
        controller(Parameters.defaults().withHoldAfter(1).withProbation(Duration.ofMillis(150)));
    c.onFailure(0, NG);
    c.onSlice(S, 1);
    assertTrue(c.tryAcquire(S));
    c.onSlice(3 * S, 1);
    assertSame(State.HOLDING, c.state());
    assertEquals(10, c.onSlice(4 * S, 1));
    assertEquals(
        List.of(
            "0 STEADY->HOLDING FAILURES",
            "1 probe 1",
            "4 HOLDING->RAMPING PROBE_SURVIVED",
            "4 rate Infinity->100.0 NaN PROBE_SURVIVED"),
        events);
  }

  @Test
  void aFailureReportedOneProbationAfterTheProbe_failsTheProbe() {
    AdaptiveRateController c = controller(Parameters.defaults().withHoldAfter(1));
    c.onFailure(0, NG);
    c.onSlice(S, 1);
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, 1);
    c.onFailure(2 * S + 1, S); // one slice after the probe's slice: within its probation
    c.onSlice(3 * S, 1);
    assertSame(State.HOLDING, c.state());
    // the second probe waits 200 ms after the failed probe was resolved
    assertEquals(0, c.onSlice(4 * S, 1));
    assertEquals(1, c.onSlice(5 * S, 1));
  }

  @Test
  void aProbeThatHasNotStartedDoesNotSurvive_howeverManySlicesPass() {
    AdaptiveRateController c = holding();
    c.onSlice(S, 5);
    assertTrue(c.tryGrant(S), "the probe");
    for (long k = 2; k <= 10; k++) {
      c.onSlice(k * S, 5);
      assertEquals(State.HOLDING, c.state(), "slice " + k);
      assertFalse(c.tryGrant(k * S), "one probe at a time, slice " + k);
    }
  }

  @Test
  void aProbeSurvivesItsProbationCountedFromItsStart() {
    AdaptiveRateController c = holding();
    c.onSlice(S, 5);
    assertTrue(c.tryGrant(S));
    c.onSlice(5 * S, 5);
    c.onStarted(5 * S, S); // started four slices after its grant
    c.onSlice(6 * S, 5);
    assertEquals(State.HOLDING, c.state(), "its probation (a slice) has not been resolved yet");
    c.onSlice(7 * S, 5);
    assertEquals(State.RAMPING, c.state());
  }

  @Test
  void aProbeThatFailsWhileItStartsIsAFailure() {
    AdaptiveRateController c = holding();
    c.onSlice(S, 5);
    assertTrue(c.tryGrant(S));
    c.onSlice(5 * S, 5);
    c.onStarted(5 * S, S);
    c.onFailure(5 * S, 5 * S);
    // the failure is seen at slice 6: the next probe 200 ms after it
    c.onSlice(6 * S, 5);
    c.onSlice(7 * S, 5);
    assertEquals(State.HOLDING, c.state());
    assertFalse(c.tryGrant(7 * S));
    c.onSlice(8 * S, 5);
    assertTrue(c.tryGrant(8 * S));
    assertEquals(State.HOLDING, c.state());
  }

  @Test
  void aProbeThatNeverStartsIsGivenUpAfterTheTimeout_andTheNextProbeFollows() {
    AdaptiveRateController c = holding();
    c.onSlice(S, 5);
    assertTrue(c.tryGrant(S));
    long timeoutSlices = AdaptiveRateController.PROBE_START_TIMEOUT.toNanos() / S; // 10
    long givenUp = 1 + timeoutSlices + 1; // the first slice more than the timeout after the grant
    for (long k = 2; k < givenUp + 2; k++) {
      c.onSlice(k * S, 5);
      assertFalse(c.tryGrant(k * S), "slice " + k);
    }
    c.onSlice((givenUp + 2) * S, 5);
    assertTrue(c.tryGrant((givenUp + 2) * S), "200 ms after the probe was given up");
    assertEquals(State.HOLDING, c.state(), "given up is not survived");
  }

  @Test
  void tryAcquireIsAGrantThatStartsAtOnce() {
    AdaptiveRateController c = holding();
    c.onSlice(S, 5);
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, 5);
    c.onSlice(3 * S, 5);
    assertEquals(State.RAMPING, c.state());
  }
}
