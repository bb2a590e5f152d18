package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.NG;
import static dev.supervision.backoff.rate.Steps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A controller is idle only when nothing it did can still change it: no grant left unresolved, no
 * failure in its window, its ceiling's bucket full. Stepped by hand ({@link Steps}).
 */
final class ControllerIdleTest {

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  @Test
  void isIdle_onlyOnceEveryGrantLeftTheRingOfProbationPlusTwoSlices() {
    // probation 250 ms is 3 whole slices (rounded up): a ring of 5 slices
    AdaptiveRateController c =
        controller(Parameters.defaults().withProbation(Duration.ofMillis(250)));
    assertTrue(c.tryAcquire(0));
    assertFalse(c.isIdle());
    c.onSlice(4 * S, 0);
    assertFalse(c.isIdle());
    c.onSlice(5 * S, 0);
    assertTrue(c.isIdle());
  }

  @Test
  void isIdle_notWhileTheCeilingsBucketRefills() {
    // a ceiling of 2/s: 0.2 tokens per slice, room for 1
    AdaptiveRateController c = controller(Parameters.defaults().withMaxRate(2));
    assertEquals(1, c.onSlice(0, 0));
    assertTrue(c.tryAcquire(0));
    c.onSlice(3 * S, 0); // the grant is resolved, 0.6 tokens
    assertEquals(0, c.available());
    assertFalse(c.isIdle());
    c.onSlice(6 * S, 0); // full again
    assertEquals(1, c.available());
    assertTrue(c.isIdle());
  }

  @Test
  void isIdle_notWhileAFailureIsInTheOneSecondWindow() {
    AdaptiveRateController c = controller(Parameters.defaults());
    c.onFailure(0, NG);
    assertFalse(c.isIdle());
    c.onSlice(9 * S, 0);
    assertFalse(c.isIdle());
    c.onSlice(10 * S, 0);
    assertTrue(c.isIdle());
  }
}
