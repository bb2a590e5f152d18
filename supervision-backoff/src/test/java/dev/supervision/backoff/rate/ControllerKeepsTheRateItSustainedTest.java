package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rejections that are not the resource's capacity (a late tick whose caught-up permits reach a
 * limiter without burst together) do not make the controller forget the rate it just sustained: a
 * single failure in a slice is no loss, and a cut keeps 0.85 x the most a clean slice of the last
 * second got through. What slow start got through is forgotten when the loss goes on right after it
 * ended: that may have been a limiter's burst, not its rate.
 */
final class ControllerKeepsTheRateItSustainedTest {

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

  /** Slices of grants to 5,000 waiting actors ({@link Steps#slices}); returns each slice's grants. */
  private static List<Integer> run(AdaptiveRateController c, Steps.Resource r, long from, long to) {
    return Steps.slices(c, r, from, to).stream().map(Steps.Slice::granted).toList();
  }

  /** A limiter without burst at 50 per second: takes 5 a slice, every other one above that. */
  private static int limiter(int offered, int perSlice) {
    return offered <= perSlice ? offered : offered / 2;
  }

  @Test
  void oneRejectionInASliceOfAFewGrants_isNoLoss() {
    AdaptiveRateController c = controller();
    run(c, (k, g) -> limiter(g, 5), 1, 60);
    cuts.clear();
    double before = c.rate();
    // every third slice, one of its few grants is rejected: 20 % or more of them, but one
    run(c, (k, g) -> k % 3 == 0 ? Math.min(g, 5) - 1 : limiter(g, 5), 61, 90);
    assertTrue(
        cuts.stream().allMatch(cut -> cut.goodput() * S / 1e9 >= 4),
        "cut for a single rejection: " + cuts);
    assertTrue(c.rate() >= before * 0.9, c.rate() + " after " + before);
  }

  @Test
  void aClumpOfRejections_cutsToMostOfTheSustainedRate_notToTheSlicesGoodput() {
    AdaptiveRateController c = controller();
    run(c, (k, g) -> limiter(g, 20), 1, 60);
    cuts.clear();
    // one slice's grants reach the limiter partly together: 8 of them are rejected
    run(c, (k, g) -> k == 61 ? Math.min(g, 20) - 8 : limiter(g, 20), 61, 64);
    Cut cut = cuts.stream().filter(x -> x.goodput() <= 140).findFirst().orElseThrow();
    assertTrue(cut.to() >= 0.85 * 170, "cut to " + cut + ", all: " + cuts);
    assertTrue(cut.to() > 0.9 * cut.goodput() + 1, cut.toString());
  }

  @Test
  void aLimitersBurstTakenInSlowStart_isForgottenWhenTheLossGoesOn() {
    AdaptiveRateController c = controller();
    // a token bucket: 20 a slice, and a burst of 100 that slow start drains
    double[] tokens = {100};
    Steps.Resource bucket =
        (k, g) -> {
          tokens[0] = Math.min(120, tokens[0] + 20);
          int ok = (int) Math.min(g, tokens[0]);
          tokens[0] -= ok;
          return ok;
        };
    List<Integer> grants = run(c, bucket, 1, 40);
    Cut first = cuts.get(0);
    assertTrue(first.goodput() > 300, "slow start took the burst: " + cuts);
    // within three slices of the first cut, the rate is back to what the bucket serves, not its
    // burst
    assertTrue(
        cuts.stream().anyMatch(x -> x.slice() <= first.slice() + 3 && x.to() <= 0.9 * 200 + 1e-6),
        cuts.toString());
    assertEquals(
        0,
        grants.subList((int) first.slice() + 4, 40).stream().filter(g -> g > 24).count(),
        grants.toString());
  }

  /**
   * Slow start from slice 3 (10, 14, 20, 28, 40 grants a slice, all served); half of slice 8's
   * grants fail at once: the cut at slice 9, the end of slow start, keeps 0.85 x the 28 of slice 7
   * (238 a second). Half of slice 9's grants fail during slice 10, within their probation: that
   * loss is known when slice 9 is resolved, at slice 11, two slices after slow start ended. It is
   * the loss going on, so what slow start got through is forgotten and the cut is to 0.9 x the
   * goodput of slice 9 (12 successes, 120 a second), not back to 238.
   */
  @Test
  void aLossResolvedTwoSlicesAfterSlowStartEnded_stillForgetsWhatSlowStartGotThrough() {
    AdaptiveRateController c = controller();
    for (int i = 0; i < 10; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    List<Integer> grants = new ArrayList<>();
    int failLater = 0;
    for (long k = 1; k <= 11; k++) {
      long now = k * S;
      c.onSlice(now, 5_000);
      if (k == 10) {
        for (int i = 0; i < failLater; i++) {
          c.onFailure(now, 9 * S); // granted in slice 9, failed within the probation
        }
      }
      int g = 0;
      while (g < 100_000 && c.tryAcquire(now)) {
        g++;
      }
      if (k == 8) {
        for (int i = 0; i < g / 2; i++) {
          c.onFailure(now, now);
        }
      } else if (k == 9) {
        failLater = g / 2;
      }
      grants.add(g);
    }
    assertEquals(List.of(1, 0, 10, 10, 14, 20, 28, 40, 23, 25, 10), grants, cuts.toString());
    assertEquals(2, cuts.size(), cuts.toString());
    Cut first = cuts.get(0);
    assertEquals(9, first.slice());
    assertEquals(0.85 * 28 * 10, first.to(), 1e-9, "the first cut keeps what slow start sustained");
    Cut second = cuts.get(1);
    assertEquals(11, second.slice());
    assertEquals(120, second.goodput(), 1e-9);
    assertEquals(0.9 * 120, second.to(), 1e-9, "slow start's 28 a slice is forgotten: " + cuts);
  }
}
