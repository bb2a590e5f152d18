package dev.supervision.backoff.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.Parameters;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntBinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The smallest loss that counts (two failures in a slice, for a controller alone) cuts the rate only
 * to the slice's goodput, and not below the most a clean slice of the last second got through:
 * behind a limiter without burst, one late scheduler tick makes such a loss whatever the rate. A
 * larger loss cuts as before, to 0.9 x the goodput, at least 0.85 x that clean slice.
 */
final class AdaptiveRateControllerCutsASmallLossToItsGoodputTest {

  private static final long S = Drive.SLICE;

  private record Cut(long slice, double from, double to, double goodput) {}

  private final List<Cut> cuts = new ArrayList<>();

  private AdaptiveRateController controller() {
    return new AdaptiveRateController(
        Parameters.defaults(),
        new AdaptiveRateController.Listener() {
          @Override
          public void rateChanged(
              double from, double to, double goodput, Reason reason, long nowNanos) {
            if (reason == Reason.LOSS) {
              cuts.add(new Cut(nowNanos / S, from, to, goodput));
            }
          }
        });
  }

  /**
   * Slices of grants to 5,000 waiting actors; {@code accepts.applyAsInt(slice, offered)} of a
   * slice's grants succeed, the others fail at once. Returns each slice's successes.
   */
  private static List<Integer> run(
      AdaptiveRateController c, IntBinaryOperator accepts, int from, int to) {
    int waiting = 5_000;
    if (from == 1) {
      for (int i = 0; i < waiting; i++) {
        c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
      }
    }
    List<Integer> successes = new ArrayList<>();
    for (int k = from; k <= to; k++) {
      long now = k * S;
      c.onSlice(now, waiting);
      int g = 0;
      while (g < 100_000 && c.tryAcquire(now)) {
        g++;
      }
      int ok = Math.max(0, Math.min(g, accepts.applyAsInt(k, g)));
      for (int i = ok; i < g; i++) {
        c.onFailure(now, now);
      }
      successes.add(ok);
    }
    return successes;
  }

  /** A limiter without burst at 200 per second: 20 a slice, every other one above that. */
  private static int limiter(int offered) {
    return offered <= 20 ? offered : offered / 2;
  }

  /** The most successes of a slice in {@code [from, to]} (1-based slices) that lost nothing. */
  private static int bestClean(List<Integer> successes, List<Integer> offered, int from, int to) {
    int best = 0;
    for (int k = from; k <= to; k++) {
      if (successes.get(k - 1).equals(offered.get(k - 1))) {
        best = Math.max(best, successes.get(k - 1));
      }
    }
    return best;
  }

  @Test
  void twoRejections_cutOnlyToTheBestCleanSliceOfTheLastSecond() {
    AdaptiveRateController c = controller();
    List<Integer> offered = new ArrayList<>();
    List<Integer> ok = run(c, (k, g) -> record(offered, g, limiter(g)), 1, 60);
    int best = bestClean(ok, offered, 50, 60);
    assertTrue(best >= 15, "no clean slice to keep: " + ok);
    cuts.clear();
    // one slice loses two of its grants (a late tick), the others take what they are offered
    run(c, (k, g) -> record(offered, g, k == 61 ? Math.min(g, 20) - 2 : limiter(g)), 61, 63);
    Cut cut = cuts.stream().filter(x -> x.slice() == 62).findFirst().orElseThrow();
    assertEquals(
        Math.min(cut.from(), Math.max(cut.goodput(), best * 1e9 / S)),
        cut.to(),
        1e-6,
        "cut for two rejections: " + cut + ", best clean slice " + best);
    assertTrue(cut.to() >= cut.goodput(), cut.toString());
  }

  @Test
  void threeRejections_cutAsAnyLoss() {
    AdaptiveRateController c = controller();
    List<Integer> offered = new ArrayList<>();
    List<Integer> ok = run(c, (k, g) -> record(offered, g, limiter(g)), 1, 60);
    int best = bestClean(ok, offered, 50, 60);
    cuts.clear();
    run(c, (k, g) -> record(offered, g, k == 61 ? Math.min(g, 20) - 3 : limiter(g)), 61, 63);
    Cut cut = cuts.stream().filter(x -> x.slice() == 62).findFirst().orElseThrow();
    assertEquals(
        Math.min(cut.from(), Math.max(0.9 * cut.goodput(), 0.85 * best * 1e9 / S)),
        cut.to(),
        1e-6,
        "cut for three rejections: " + cut + ", best clean slice " + best);
  }

  private static int record(List<Integer> offered, int g, int accepted) {
    offered.add(g);
    return accepted;
  }
}
