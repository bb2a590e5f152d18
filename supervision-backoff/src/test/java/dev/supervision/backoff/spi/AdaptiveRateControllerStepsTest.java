package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The controller stepped by hand, one slice at a time, with every value computed from the
 * documented rules. Unless a test says otherwise: slices of 100 ms, probation 100 ms (one slice, so
 * a slice's grants are resolved two slices later), initial rate 100/s (10 per slice), least rate
 * 5/s, cut to 0.9 x goodput, tolerance 10 %, growth 20 %/s (2 % per slice), slow start x sqrt(2)
 * per slice (x 2 per round trip of 200 ms), a window and a calm period of 10 slices.
 */
final class AdaptiveRateControllerStepsTest {

  private static final long S = 100_000_000L;
  private static final long NG = AdaptiveRateController.NOT_GRANTED;

  private final List<String> events = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder =
      new AdaptiveRateController.Listener() {
        @Override
        public void stateChanged(State from, State to, Reason reason, long nowNanos) {
          events.add(nowNanos / S + " " + from + "->" + to + " " + reason);
        }

        @Override
        public void rateChanged(
            double from, double to, double goodput, Reason reason, long nowNanos) {
          events.add(nowNanos / S + " rate " + from + "->" + to + " " + goodput + " " + reason);
        }

        @Override
        public void probe(int probes, long nowNanos) {
          events.add(nowNanos / S + " probe " + probes);
        }
      };

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(p, recorder);
  }

  private static int take(AdaptiveRateController c, long k, int n) {
    int granted = 0;
    for (int i = 0; i < n && c.tryAcquire(k * S); i++) {
      granted++;
    }
    return granted;
  }

  /** Holds at slice 0 (one failure is enough), probes at slice 1; the probe survives. */
  private AdaptiveRateController rampingAtSlice3(Parameters p, int waiting) {
    AdaptiveRateController c = controller(p.withHoldAfter(1));
    c.onFailure(0, NG);
    assertEquals(1, c.onSlice(S, waiting));
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, waiting);
    c.onSlice(3 * S, waiting);
    assertEquals(State.RAMPING, c.state());
    events.clear();
    return c;
  }

  // ------------------------------------------------------------------ steady

  // ------------------------------------------------------------------ holding

  // ------------------------------------------------------------------ ramping

  // ------------------------------------------------------------------ late calls

  @Test
  void constructor_rejectsNulls() {
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> new AdaptiveRateController(null));
    assertEquals("parameters must not be null", e.getMessage());
    e =
        assertThrows(
            NullPointerException.class,
            () -> new AdaptiveRateController(Parameters.defaults(), null));
    assertEquals("listener must not be null", e.getMessage());
  }
}
