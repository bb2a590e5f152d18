package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The controller driven with virtual ticks: 100 ms slices, a resource serving 100 calls per slice. */
final class AdaptiveRateControllerTest {

  private final List<String> log = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder =
      new AdaptiveRateController.Listener() {
        @Override
        public void stateChanged(State from, State to, Reason reason, long nowNanos) {
          log.add(nowNanos / Drive.SLICE + " " + to + " " + reason);
        }

        @Override
        public void rateChanged(
            double from, double to, double goodput, Reason reason, long nowNanos) {
          if (reason == Reason.LOSS) {
            log.add(
                nowNanos / Drive.SLICE
                    + " rate "
                    + Math.round(to)
                    + " goodput "
                    + Math.round(goodput));
          }
        }

        @Override
        public void probe(int probes, long nowNanos) {
          log.add(nowNanos / Drive.SLICE + " probe " + probes);
        }
      };

  @Test
  void parameters_nameTheRejectedValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Parameters.defaults().withInitialRate(0));
    assertEquals("initialRate must be finite and > 0 but was 0.0", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Parameters.defaults().withProbation(Duration.ZERO));
    assertEquals("probation must be > 0 but was PT0S", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Parameters.defaults().withHoldAfter(0));
    assertEquals("holdAfter must be >= 1 but was 0", e.getMessage());
    assertThrows(NullPointerException.class, () -> Parameters.defaults().withProbation(null));
  }
}
