package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import org.junit.jupiter.api.Test;

/**
 * A restart granted with {@code tryGrant} is neither a success nor a failure until its start is
 * reported; its probation counts from the start; a probe that never starts is given up after
 * {@link AdaptiveRateController#PROBE_START_TIMEOUT} and the next probe follows as after a failure.
 * Slices of 100 ms, probation 100 ms, hold after 1 failure.
 */
final class AdaptiveRateControllerCountsAGrantFromItsStartTest {

  private static final long S = 100_000_000L;

  /** A controller holding since slice 0: its first probe is due at slice 1. */
  private static AdaptiveRateController holding() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults().withHoldAfter(1));
    c.onSlice(0, 5);
    c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    assertEquals(State.HOLDING, c.state());
    return c;
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
