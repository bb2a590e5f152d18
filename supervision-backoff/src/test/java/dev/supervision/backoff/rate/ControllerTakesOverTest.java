package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.NG;
import static dev.supervision.backoff.rate.Steps.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link AdaptiveRateController#takeOver} continues from another controller's state: steady as after
 * a recovery, holding with its first probe one {@code firstProbe} later, ramping at the rate given
 * (within the least rate and the ceiling) without slow start. Stepped by hand ({@link Steps}).
 */
final class ControllerTakesOverTest {

  private final List<String> events = new ArrayList<>();

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, Steps.recorder(events));
  }

  @Test
  void takingOverSteady_fromHolding_isSteadyAsAfterARecovery() {
    AdaptiveRateController c = controller(Parameters.defaults().withHoldAfter(1).withMaxRate(50));
    c.onFailure(0, NG);
    assertSame(State.HOLDING, c.state());
    c.takeOver(State.STEADY, 0, 2 * S);
    assertSame(State.STEADY, c.state());
    assertEquals(50.0, c.rate());
    assertEquals(5, c.available(), "the ceiling's bucket, full: 50/s x 100 ms");
    assertEquals(List.of("0 STEADY->HOLDING FAILURES", "2 HOLDING->STEADY TAKEN_OVER"), events);
  }

  @Test
  void takingOverSteady_whenSteady_changesNothing() {
    AdaptiveRateController c = controller(Parameters.defaults());
    c.takeOver(State.STEADY, 0, 0);
    assertSame(State.STEADY, c.state());
    assertEquals(List.of(), events);
  }

  @Test
  void takingOverHolding_probesOneFirstProbeLater() {
    AdaptiveRateController c = controller(Parameters.defaults());
    c.takeOver(State.HOLDING, 0, 3 * S);
    assertSame(State.HOLDING, c.state());
    assertEquals(0, c.available());
    assertEquals(1, c.onSlice(4 * S, 1), "the first probe, 100 ms later");
    assertEquals(List.of("3 STEADY->HOLDING TAKEN_OVER"), events);
  }

  @Test
  void takingOverRamping_rampsAtTheRateGiven_withinTheLeastRateAndTheCeiling() {
    AdaptiveRateController c = controller(Parameters.defaults().withMaxRate(300));
    c.takeOver(State.RAMPING, 120, 0);
    assertSame(State.RAMPING, c.state());
    assertEquals(120.0, c.rate());
    c.takeOver(State.RAMPING, 1_000, S);
    assertEquals(300.0, c.rate(), "not above the ceiling");
    c.takeOver(State.RAMPING, 0.5, 2 * S);
    assertEquals(5.0, c.rate(), "not below the least rate");
    assertEquals(
        "rate must be finite and > 0 but was NaN",
        assertThrows(
                IllegalArgumentException.class, () -> c.takeOver(State.RAMPING, Double.NaN, 3 * S))
            .getMessage());
  }
}
