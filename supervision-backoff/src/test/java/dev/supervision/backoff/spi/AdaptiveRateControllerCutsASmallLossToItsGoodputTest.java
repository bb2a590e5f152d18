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
    return controller(Parameters.defaults());
  }

  private AdaptiveRateController controller(Parameters p) {
    return new AdaptiveRateController(
        p,
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

  /**
   * Slice {@code k}: {@code grants} grants (the controller must permit them), {@code failNow} of
   * them fail at once, and {@code failLate} grants of the slice before fail now, within the
   * probation.
   */
  private static void slice(
      AdaptiveRateController c, long k, int grants, int failNow, int failLate) {
    long now = k * S;
    c.onSlice(now, 5_000);
    for (int i = 0; i < grants; i++) {
      assertTrue(c.tryAcquire(now), "grant " + i + " of " + grants + " in slice " + k);
    }
    for (int i = 0; i < failNow; i++) {
      c.onFailure(now, now);
    }
    for (int i = 0; i < failLate; i++) {
      c.onFailure(now, now - S);
    }
  }

  /** Warms a controller up behind the limiter, then runs the given slices 61.. and clean ones. */
  private void warmThen(AdaptiveRateController c, int[]... slices) {
    List<Integer> offered = new ArrayList<>();
    List<Integer> ok = run(c, (k, g) -> record(offered, g, limiter(g)), 1, 60);
    int best = bestClean(ok, offered, 50, 60);
    assertTrue(best >= 15, "no clean slice to keep: " + ok);
    cuts.clear();
    long k = 61;
    for (int[] s : slices) {
      slice(c, k++, s[0], s[1], s[2]);
    }
    for (int i = 0; i < 4; i++) {
      slice(c, k++, 8, 0, 0);
    }
  }

  @Test
  void twoOfTenGrants_exactlyTwiceTheTolerance_isASmallLossCutAtOnceToTheBestCleanSlice() {
    AdaptiveRateController c = controller();
    List<Integer> offered = new ArrayList<>();
    List<Integer> ok = run(c, (k, g) -> record(offered, g, limiter(g)), 1, 60);
    int best = bestClean(ok, offered, 50, 60);
    cuts.clear();
    slice(c, 61, 10, 2, 0); // 20 %: 2 <= 2 x 0.1 x 10
    slice(c, 62, 8, 0, 0);
    Cut cut = cuts.stream().filter(x -> x.slice() == 62).findFirst().orElseThrow();
    double small = Math.min(cut.from(), Math.max(cut.goodput(), best * 1e9 / S));
    double any = Math.min(cut.from(), Math.max(0.9 * cut.goodput(), 0.85 * best * 1e9 / S));
    assertTrue(small > any + 1, "the example does not tell the two cuts apart: " + cut);
    assertEquals(80, cut.goodput(), 1e-6, cut.toString());
    assertEquals(small, cut.to(), 1e-6, "cut for 2 of 10: " + cut + ", best clean " + best);
  }

  @Test
  void twoOfNineGrants_justAboveTwiceTheTolerance_cutAsAnyLoss() {
    AdaptiveRateController c = controller();
    List<Integer> offered = new ArrayList<>();
    List<Integer> ok = run(c, (k, g) -> record(offered, g, limiter(g)), 1, 60);
    int best = bestClean(ok, offered, 50, 60);
    cuts.clear();
    slice(c, 61, 9, 2, 0); // 22 %: 2 > 2 x 0.1 x 9
    slice(c, 62, 8, 0, 0);
    Cut cut = cuts.stream().filter(x -> x.slice() == 62).findFirst().orElseThrow();
    double any = Math.min(cut.from(), Math.max(0.9 * cut.goodput(), 0.85 * best * 1e9 / S));
    assertTrue(
        Math.min(cut.from(), Math.max(cut.goodput(), best * 1e9 / S)) > any + 1, cut.toString());
    assertEquals(any, cut.to(), 1e-6, "cut for 2 of 9: " + cut + ", best clean " + best);
  }

  @Test
  void failuresOfExactlyTheTolerance_cutNothing() {
    Parameters d = Parameters.defaults();
    AdaptiveRateController c =
        controller(
            new Parameters(
                d.slice(),
                d.probation(),
                d.initialRate(),
                d.minRate(),
                d.maxRate(),
                d.decrease(),
                0.2,
                d.growth(),
                d.firstProbe(),
                d.maxProbeInterval(),
                d.holdAfter()));
    warmThen(c, new int[] {10, 2, 0}); // 2 = 0.2 x 10 at once
    assertEquals(List.of(), cuts.stream().filter(x -> x.slice() > 61).toList());
  }

  @Test
  void oneFailureAboveTheTolerance_alone_cutsNothing_atOnceOrLate() {
    AdaptiveRateController c = controller();
    warmThen(c, new int[] {5, 1, 0}, new int[] {5, 0, 0}, new int[] {5, 0, 0});
    assertEquals(List.of(), cuts, "one of 5 failing at once");
    AdaptiveRateController late = controller();
    warmThen(late, new int[] {5, 0, 0}, new int[] {5, 0, 1}, new int[] {5, 0, 0});
    assertEquals(List.of(), cuts, "one of 5 failing in the next slice");
  }

  @Test
  void twoFailuresReportedInTheNextSlice_cutWhenTheSliceIsResolved() {
    AdaptiveRateController c = controller();
    warmThen(c, new int[] {10, 0, 0}, new int[] {8, 0, 2});
    // slice 61 is resolved at the start of slice 63 (probation: one slice)
    Cut cut = cuts.stream().findFirst().orElseThrow();
    assertEquals(63, cut.slice(), cuts.toString());
    assertEquals(80, cut.goodput(), 1e-6, cut.toString());
  }

  private static int record(List<Integer> offered, int g, int accepted) {
    offered.add(g);
    return accepted;
  }
}
