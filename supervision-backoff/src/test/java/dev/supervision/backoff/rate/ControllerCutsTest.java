package dev.supervision.backoff.rate;

import static dev.supervision.backoff.rate.Steps.S;
import static dev.supervision.backoff.rate.Steps.take;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntBinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A loss, more than the tolerance of a slice's grants failing within their probation, cuts the rate
 * at once to 0.9 x the slice's goodput, never below the least rate, and is reported even when it
 * changes nothing; the smallest loss that counts (two failures in a slice, for a controller alone)
 * cuts only to the slice's goodput, and neither cut goes below the most a clean slice of the last
 * second got through (all of it for the small loss, 0.85 x for a larger one): behind a limiter
 * without burst, one late scheduler tick makes such a loss whatever the rate. A slice whose grants
 * all failed holds again, and halves the next start rate. Stepped by hand ({@link Steps}) or driven
 * ({@link Drive}: 100 ms slices, a resource serving 100 calls per slice).
 */
final class ControllerCutsTest {

  private record Cut(long slice, double from, double to, double goodput) {}

  private final List<Cut> cuts = new ArrayList<>();

  private final List<String> log = new ArrayList<>();

  private final AdaptiveRateController.Listener recorder = Drive.log(log);

  private final List<String> events = new ArrayList<>();

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
    return Steps.slices(c, (k, g) -> accepts.applyAsInt((int) k, g), from, to).stream()
        .map(Steps.Slice::served)
        .toList();
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

  private static int record(List<Integer> offered, int g, int accepted) {
    offered.add(g);
    return accepted;
  }

  private AdaptiveRateController rampingAtSlice3(Parameters p, int waiting) {
    return Steps.rampingAtSlice3(p, waiting, events);
  }

  @Test
  void failuresAtExactlyTheTolerance_doNotCut() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    c.onFailure(3 * S, 3 * S); // 1 of 10: exactly 10 %
    c.onSlice(4 * S, 1000);
    take(c, 4, 1000);
    c.onSlice(5 * S, 1000);
    assertEquals(100 * Math.sqrt(2), c.rate(), 1e-9);
    assertEquals(1, events.size());
    assertTrue(events.get(0).endsWith(" NaN SLOW_START"), events.get(0));
    assertEquals(Double.NaN, c.goodput());
  }

  @Test
  void aLossCutsAtOnceToTheGoodput_thenGrowsCarefullyFromTheCutsSlice() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 5; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    // 5 survivors in 100 ms: goodput 50/s, rate 0.9 x 50 = 45/s, 4.5 per slice
    assertEquals(4, c.onSlice(4 * S, 1000));
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS"), events);
    assertEquals(50.0, c.goodput());
    assertEquals(45.0, c.rate());
    assertEquals("AdaptiveRateController{state=RAMPING, rate=45.0, goodput=50.0}", c.toString());
    assertEquals(4, take(c, 4, 1000));
    // slice 3 is resolved now, but it was cut for already; 0.5 left + 4.5, capped at 4.5
    assertEquals(4, c.onSlice(5 * S, 1000));
    assertEquals(1, events.size());
    assertEquals(4, take(c, 5, 1000));
    // slice 4 (granted after the cut, actors waiting) is resolved: +2 % per slice
    c.onSlice(6 * S, 1000);
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS", "6 rate 45.0->45.9 NaN GROWTH"), events);
  }

  @Test
  void lateFailuresCutWhenTheirSliceIsResolved() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 5; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    c.onSlice(4 * S, 1000); // cut to 45/s
    assertEquals(4, take(c, 4, 1000));
    c.onSlice(5 * S, 1000);
    assertEquals(4, take(c, 5, 1000));
    c.onFailure(5 * S + 1, 4 * S); // two of slice 4's grants fail, within their probation
    c.onFailure(5 * S + 2, 4 * S);
    c.onSlice(6 * S, 1000); // 2 survivors in 100 ms: 20/s, rate 18/s
    assertEquals(List.of("4 rate 100.0->45.0 50.0 LOSS", "6 rate 45.0->18.0 20.0 LOSS"), events);
    assertEquals(20.0, c.goodput());
  }

  @Test
  void aCutThatChangesNothing_isStillReported_andNeverGoesBelowTheLeastRate() {
    // least rate 50/s
    AdaptiveRateController c =
        rampingAtSlice3(
            new Parameters(
                Duration.ofMillis(100),
                100,
                Double.POSITIVE_INFINITY,
                10,
                50,
                Duration.ofMillis(100)),
            1000);
    assertEquals(10, take(c, 3, 1000));
    for (int i = 0; i < 9; i++) {
      c.onFailure(3 * S, 3 * S);
    }
    assertEquals(5, c.onSlice(4 * S, 1000)); // goodput 10/s, 9/s is below 50/s
    assertEquals(5, take(c, 4, 1000));
    for (int i = 0; i < 4; i++) {
      c.onFailure(4 * S, 4 * S);
    }
    c.onSlice(5 * S, 1000);
    assertEquals(List.of("4 rate 100.0->50.0 10.0 LOSS", "5 rate 50.0->50.0 10.0 LOSS"), events);
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
  void failuresOfExactlyTheTolerance_cutNothing_oneMoreCuts() {
    for (int failures : new int[] {2, 3}) {
      AdaptiveRateController c = rampingAtSlice3(Parameters.defaults().withInitialRate(200), 1000);
      assertEquals(20, take(c, 3, 1000));
      for (int i = 0; i < failures; i++) {
        c.onFailure(3 * S, 3 * S); // 2 = 10 % of 20
      }
      c.onSlice(4 * S, 1000);
      c.onSlice(5 * S, 1000);
      boolean cut = events.stream().anyMatch(e -> e.endsWith(" LOSS"));
      assertEquals(failures > 2, cut, failures + " of 20: " + events);
    }
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

  @Test
  void aSliceWhoseGrantsAllFailed_holdsAtItsResolution_andHalvesTheNextStartDownToTheLeastRate() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults().withInitialRate(8), 1000);
    assertEquals(0, take(c, 3, 1000)); // 0.8 tokens
    assertEquals(1, c.onSlice(4 * S, 1000));
    assertEquals(1, take(c, 4, 1000));
    c.onFailure(4 * S, 4 * S);
    c.onSlice(5 * S, 1000); // no early cut: nothing survived, nothing to measure
    assertEquals(List.of(), events);
    c.onSlice(6 * S, 1000);
    assertEquals(List.of("6 RAMPING->HOLDING ALL_FAILED"), events);
    assertEquals(1, c.onSlice(7 * S, 1000));
    assertTrue(c.tryAcquire(7 * S));
    c.onSlice(8 * S, 1000);
    c.onSlice(9 * S, 1000);
    assertSame(State.RAMPING, c.state());
    assertEquals(5.0, c.rate()); // 8 / 2 = 4, below the least rate of 5
  }

  @Test
  void aFailureNamingASliceThatGrantedNothing_neitherCutsNorHolds() {
    AdaptiveRateController c = rampingAtSlice3(Parameters.defaults(), 1000);
    assertEquals(10, take(c, 3, 1000));
    c.onSlice(4 * S, 1000); // nothing granted in slice 4
    c.onFailure(4 * S, 4 * S);
    c.onSlice(5 * S, 1000);
    c.onSlice(6 * S, 1000);
    assertSame(State.RAMPING, c.state());
    assertEquals(1, events.size());
    assertTrue(events.get(0).startsWith("5 rate 100.0->141.42135623730"), events.get(0));
  }

  @Test
  void aSliceWhoseGrantsAllFailHoldsAgain_andHalvesTheNextStartRate() {
    Drive d =
        new Drive(new AdaptiveRateController(Parameters.defaults(), recorder), 10_000)
            .allFailAtZero();
    d.run(1, 25, 100); // probe at 1 survives, ramping from slice 3
    log.clear();
    d.run(25, 28, 0); // the resource is down again
    assertEquals(State.HOLDING, d.c.state());
    assertEquals(List.of("27 HOLDING ALL_FAILED"), log);
    log.clear();
    List<Integer> up = d.run(28, 34, 100);
    assertEquals(List.of(1, 0, 5, 5, 7, 10), up); // ramping again from 50/s
  }
}
