package dev.supervision.backoff.rate;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Properties of the controller against resources whose capacity changes at random, slice by slice. */
final class AdaptiveRateControllerBoundsPropertyTest {

  private static final long SLICE = Drive.SLICE;

  /**
   * After a loss, a slice grants no more than the goodput measured, or than the most that one of
   * the slices of the last second got through: a cut never goes above what the resource was seen to
   * serve.
   */
  @Property(tries = 300)
  boolean afterALoss_theSliceGrantsNoMoreThanTheResourceWasSeenToServe(
      @ForAll @Size(min = 20, max = 200) List<@IntRange(min = 0, max = 300) Integer> capacity,
      @ForAll @IntRange(min = 1, max = 20_000) int waiting,
      @ForAll @IntRange(min = 50, max = 400) int probationMillis,
      @ForAll @IntRange(min = 10, max = 2000) int initialRate) {
    double[] lossGoodput = {Double.NaN};
    AdaptiveRateController c =
        new AdaptiveRateController(
            Parameters.defaults()
                .withProbation(Duration.ofMillis(probationMillis))
                .withInitialRate(initialRate),
            new AdaptiveRateController.Listener() {
              @Override
              public void rateChanged(
                  double from, double to, double goodput, Reason reason, long nowNanos) {
                if (reason == Reason.LOSS) {
                  lossGoodput[0] = goodput;
                }
              }
            });
    Drive d = new Drive(c, waiting).allFailAtZero();
    List<Integer> served = new ArrayList<>();
    // a second of slices, with the probation's and the resolution's
    int seen = 10 + probationMillis / 100 + 3;
    for (int k = 1; k <= capacity.size(); k++) {
      lossGoodput[0] = Double.NaN;
      int grants = d.slice(k, capacity.get(k - 1));
      int recent =
          served.subList(Math.max(0, served.size() - seen), served.size()).stream()
              .mapToInt(Integer::intValue)
              .max()
              .orElse(0);
      served.add(Math.min(grants, capacity.get(k - 1)));
      if (!Double.isNaN(lossGoodput[0])
          && grants > Math.max(1, Math.max(lossGoodput[0] * SLICE / 1e9, recent))) {
        return false;
      }
    }
    return true;
  }

  @Property(tries = 300)
  boolean theRateNeverExceedsTheCeiling_norAnySliceOneSliceOfIt(
      @ForAll @Size(min = 20, max = 200) List<@IntRange(min = 0, max = 500) Integer> capacity,
      @ForAll @IntRange(min = 1, max = 20_000) int waiting,
      @ForAll @IntRange(min = 10, max = 3000) int ceiling,
      @ForAll boolean startFailing) {
    AdaptiveRateController c =
        new AdaptiveRateController(Parameters.defaults().withMaxRate(ceiling));
    Drive d = new Drive(c, waiting);
    if (startFailing) {
      d.allFailAtZero();
    }
    double perSlice = Math.max(1, ceiling * SLICE / 1e9);
    for (int k = 1; k <= capacity.size(); k++) {
      int grants = d.slice(k, capacity.get(k - 1));
      if (grants > Math.floor(perSlice + 1e-9) || c.rate() > ceiling) {
        return false;
      }
    }
    return true;
  }

  @Property(tries = 200)
  boolean whileTheResourceIsDown_atMostOneProbeIsOutstanding(
      @ForAll @IntRange(min = 1, max = 100) int downSlices,
      @ForAll @IntRange(min = 10, max = 5000) int waiting) {
    Drive d = new Drive(new AdaptiveRateController(Parameters.defaults()), waiting).allFailAtZero();
    int calls = 0;
    for (int k = 1; k <= downSlices; k++) {
      int grants = d.slice(k, 0);
      if (grants > 1) {
        return false;
      }
      calls += grants;
    }
    return d.c.state() == State.HOLDING && calls <= downSlices / 3 + 1;
  }
}
