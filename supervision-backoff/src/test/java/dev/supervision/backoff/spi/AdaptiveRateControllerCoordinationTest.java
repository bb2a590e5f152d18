package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.util.ArrayList;
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
}
