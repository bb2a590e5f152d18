package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.S;
import static dev.supervision.backoff.rate.Steps.take;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A steady controller grants everything, or one slice of its ceiling ({@code maxRate}) at most, and
 * {@link Pacer#follow} sets a pacer to the rate. Stepped by hand ({@link Steps}) or
 * driven ({@link Drive}: 100 ms slices).
 */
final class ControllerCeilingTest {

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  @Test
  void steadyWithoutCeiling_grantsEverything_andReportsAnInfiniteRate() {
    AdaptiveRateController c = controller(Parameters.defaults());
    assertEquals(Integer.MAX_VALUE, c.onSlice(0, 0));
    assertEquals(Integer.MAX_VALUE, c.available());
    assertEquals(Double.POSITIVE_INFINITY, c.rate());
    assertEquals(1000, take(c, 0, 1000));
    assertSame(State.STEADY, c.state());
    assertEquals("AdaptiveRateController{state=STEADY, rate=Infinity, goodput=NaN}", c.toString());
    assertEquals(Parameters.defaults(), c.parameters());
  }

  @Test
  void steadyWithCeiling_refillsOneSliceOfTheCeiling_alsoWhenTryAcquireIsTheFirstCallOfASlice() {
    AdaptiveRateController c = controller(Parameters.defaults().withMaxRate(50));
    assertEquals(5, c.onSlice(0, 0));
    assertEquals(50.0, c.rate());
    assertEquals(5, take(c, 0, 10));
    assertEquals(0, c.available());
    assertTrue(c.tryAcquire(S)); // no onSlice for slice 1: tryAcquire catches up itself
    assertEquals(4, c.available());
  }

  @Test
  void aSteadyControllerWithACeilingGrantsOneSliceOfTheCeilingAtMost() {
    AdaptiveRateController c = new AdaptiveRateController(Parameters.defaults().withMaxRate(50));
    Drive d = new Drive(c, 5);
    assertEquals(List.of(5, 0, 0), d.run(0, 3, 100));
    d.waiting = 20;
    assertEquals(List.of(5, 5, 5, 5), d.run(3, 7, 100));
  }

  @Test
  void
      aPacerFollowingTheController_takesItsRate_withABurstOfOneTick_andUnlimitedWhenTheRateIsNot() {
    long tick = 10_000_000L;
    Pacer pacer = Pacer.of(1, 1, tick);
    AdaptiveRateController capped =
        new AdaptiveRateController(Parameters.defaults().withMaxRate(500));
    pacer.follow(capped.rate(), tick, false);
    assertEquals(500.0, pacer.rate());
    assertEquals(6.0, pacer.burst(), 1e-12); // 1 + 500/s x 10 ms
    pacer.follow(capped.rate(), tick, true);
    assertEquals(5.0, pacer.burst(), 1e-12, "on a clock: ceil(500/s x 10 ms)");
    pacer.follow(50, tick, true);
    assertEquals(1.0, pacer.burst(), 1e-12, "on a clock: at least one, however low the rate");
    assertEquals(50.0, pacer.rate());
    AdaptiveRateController unlimited = new AdaptiveRateController(Parameters.defaults());
    pacer.follow(unlimited.rate(), tick, false);
    assertEquals(Double.POSITIVE_INFINITY, pacer.rate());
    AdaptiveRateController holding =
        new AdaptiveRateController(Parameters.defaults().withMaxRate(500).withHoldAfter(1));
    holding.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    assertEquals(State.HOLDING, holding.state());
    assertEquals(0.0, holding.rate());
    pacer.setRate(7);
    pacer.follow(holding.rate(), tick, false);
    assertEquals(Double.POSITIVE_INFINITY, pacer.rate(), "the controller lets one probe through");
  }
}
