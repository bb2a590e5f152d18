package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.NG;
import static dev.supervision.backoff.rate.Steps.S;
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
 * A steady controller holds after {@code holdAfter} failures within its window of one second of
 * slices, and a holding one grants nothing but its probe. Stepped by hand ({@link Steps}).
 */
final class ControllerHoldsTest {

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  @Test
  void aFailureCountsForOneSecond_tenSlices() {
    AdaptiveRateController c = controller(Parameters.defaults());
    c.onFailure(0, NG);
    c.onSlice(9 * S, 0);
    assertFalse(c.isIdle());
    c.onSlice(10 * S, 0);
    assertTrue(c.isIdle());
  }

  @Test
  void holdAfterFailuresWithinOneSecond_failuresOlderThanTheWindowDoNotCount() {
    AdaptiveRateController c = controller(Parameters.defaults().withHoldAfter(2));
    c.onFailure(0, NG);
    c.onFailure(10 * S, NG); // no onSlice in between: onFailure catches up and forgets the first
    assertSame(State.STEADY, c.state());
    c.onFailure(19 * S, NG);
    assertSame(State.HOLDING, c.state());
    assertEquals(List.of("19 STEADY->HOLDING FAILURES"), events);
  }

  @Test
  void holding_grantsNothingButOneProbe_oneSliceAfterHolding() {
    AdaptiveRateController c = controller(Parameters.defaults().withHoldAfter(1));
    c.onFailure(0, NG);
    assertSame(State.HOLDING, c.state());
    assertEquals(0.0, c.rate());
    assertEquals(0, c.available());
    assertFalse(c.tryAcquire(0));
    assertFalse(c.isIdle());
    assertEquals(1, c.onSlice(S, 5));
    assertTrue(c.tryAcquire(S));
    assertFalse(c.tryAcquire(S));
    assertEquals(0, c.available());
    assertEquals(List.of("0 STEADY->HOLDING FAILURES", "1 probe 1"), events);
  }
}
