package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Behind a limiter that rejects any request too close to the last one accepted, the goodput
 * collapses above the limiter's rate (offered 28 per slice, a 20-per-slice limiter takes 14): the
 * cut keeps 0.85 x the 20 that a slice of the last second sustained (not 0.9 x the 14) and holds
 * for its own slice only, and the next slice restores the decrease factor times the successes of
 * the last slice that stayed within the tolerance. Against a resource whose goodput is its capacity
 * (a window model), a cut is never undone.
 */
final class ControllerRestoresAfterACutTest {

  private static final long S = Drive.SLICE;

  private final List<String> events = new ArrayList<>();
  private final List<Integer> lossSlices = new ArrayList<>();

  private AdaptiveRateController controller() {
    return new AdaptiveRateController(
        Parameters.defaults(),
        new AdaptiveRateController.Listener() {
          @Override
          public void rateChanged(
              double from, double to, double goodput, Reason reason, long nowNanos) {
            events.add(nowNanos / S + " " + reason + " " + Math.round(to) + " " + goodput);
            if (reason == Reason.LOSS) {
              lossSlices.add((int) (nowNanos / S));
            }
          }
        });
  }

  /** Slices of grants against a resource that accepts {@code accepted(offered)} per slice. */
  private List<Integer> run(AdaptiveRateController c, IntUnaryOperator accepted, int slices) {
    int waiting = 5_000;
    for (int i = 0; i < waiting; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    List<Integer> grants = new ArrayList<>();
    for (long k = 1; k <= slices; k++) {
      long now = k * S;
      c.onSlice(now, waiting);
      int g = 0;
      while (waiting > 0 && g < 100_000 && c.tryAcquire(now)) {
        g++;
      }
      int ok = Math.min(g, accepted.applyAsInt(g));
      for (int i = ok; i < g; i++) {
        c.onFailure(now, now);
      }
      waiting -= ok;
      grants.add(g);
    }
    return grants;
  }

  @Test
  void
      behindALimiterWhoseGoodputCollapses_theCutKeepsMostOfTheSustainedRate_thenACleanSlicesRateIsRestored() {
    AdaptiveRateController c = controller();
    // 20 per slice, and every other request above that: a burst-0 limiter under even pacing
    List<Integer> grants = run(c, g -> g <= 20 ? g : g / 2, 30);
    int loss = lossSlices.get(0);
    assertEquals(
        List.of(loss + " LOSS 170 140.0", (loss + 1) + " RESTORED 180 NaN"),
        events.stream().filter(e -> e.contains("LOSS") || e.contains("RESTORED")).limit(2).toList(),
        events.toString());
    // the slice of the cut: 0.85 x what a clean slice sustained
    assertTrue(grants.get(loss - 1) <= 17, "the slice of the cut: " + grants);
    assertEquals(18, grants.get(loss)); // 0.9 x the 20 that a clean slice took
  }

  @Test
  void againstAWindowModel_whereTheGoodputIsTheCapacity_aCutIsNeverUndone() {
    AdaptiveRateController c = controller();
    run(c, g -> 20, 100);
    assertTrue(!lossSlices.isEmpty(), events.toString());
    assertTrue(events.stream().noneMatch(e -> e.contains("RESTORED")), events.toString());
  }
}
