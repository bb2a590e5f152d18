package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Three controllers, one per cluster node, each learning from its own outcomes, in front of one
 * resource that is down for 2 s and then serves 100 calls per 100 ms slice (first come, first
 * served, the nodes' calls interleaved).
 */
final class SharedResourceControllersTest {

  static final long SLICE = Drive.SLICE;

  @Test
  void threeNodesShareTheResourceWithoutBeingToldItsCapacity() {
    int nodes = 3;
    int capacity = 100;
    List<AdaptiveRateController> c = new ArrayList<>();
    int[] waiting = new int[nodes];
    double[] loss = new double[nodes];
    for (int n = 0; n < nodes; n++) {
      int node = n;
      AdaptiveRateController controller =
          new AdaptiveRateController(
              LeaseHolder.share(Parameters.defaults(), nodes),
              new AdaptiveRateController.Listener() {
                @Override
                public void rateChanged(
                    double from, double to, double goodput, Reason reason, long nowNanos) {
                  if (reason == Reason.LOSS) {
                    loss[node] = goodput;
                  }
                }
              });
      waiting[n] = 3334;
      for (int i = 0; i < waiting[n]; i++) {
        controller.onFailure(0, AdaptiveRateController.NOT_GRANTED);
      }
      c.add(controller);
    }
    int callsWhileDown = 0;
    int busiestSliceAfterRamp = 0;
    int failedAfterOutage = 0;
    long recoveredAt = -1;
    for (long k = 1; k < 400 && recoveredAt < 0; k++) {
      long now = k * SLICE;
      boolean up = k >= 20;
      int[] grants = new int[nodes];
      for (int n = 0; n < nodes; n++) {
        loss[n] = Double.NaN;
        c.get(n).onSlice(now, waiting[n]);
      }
      int served = 0;
      int calls = 0;
      boolean any = true;
      // round robin: one grant per node in turn (bounded, so that a broken controller that grants
      // for ever fails the test instead of hanging it)
      while (any && calls < Drive.MAX_GRANTS_PER_SLICE) {
        any = false;
        for (int n = 0; n < nodes; n++) {
          if (waiting[n] > 0 && c.get(n).tryAcquire(now)) {
            any = true;
            grants[n]++;
            calls++;
            if (up && served < capacity) {
              served++;
              waiting[n]--;
            } else {
              c.get(n).onFailure(now, now);
              if (up) {
                failedAfterOutage++;
              }
            }
          }
        }
      }
      if (!up) {
        callsWhileDown += calls;
      } else if (k >= 40) {
        busiestSliceAfterRamp = Math.max(busiestSliceAfterRamp, calls);
      }
      for (int n = 0; n < nodes; n++) {
        assertTrue(
            Double.isNaN(loss[n]) || grants[n] <= Math.max(1, loss[n] * SLICE / 1e9),
            "node "
                + n
                + " granted "
                + grants[n]
                + " in the slice of its cut to "
                + loss[n]
                + "/s");
      }
      if (waiting[0] + waiting[1] + waiting[2] == 0) {
        recoveredAt = k;
      }
    }
    // 10,002 calls at 100 per slice need 101 slices from slice 20
    assertTrue(
        recoveredAt > 0 && recoveredAt - 20 <= 101 * 1.2, "recovered at slice " + recoveredAt);
    assertTrue(callsWhileDown <= 10, "calls while down " + callsWhileDown);
    assertTrue(busiestSliceAfterRamp <= 2 * capacity, "busiest slice " + busiestSliceAfterRamp);
    assertTrue(failedAfterOutage <= 0.05 * 10_002, "failed after the outage " + failedAfterOutage);
    System.out.printf(
        "three nodes: recovered %d slices after the outage, %d calls while down, busiest slice %d, %d failed%n",
        recoveredAt - 20, callsWhileDown, busiestSliceAfterRamp, failedAfterOutage);
    assertEquals(0, waiting[0] + waiting[1] + waiting[2]);
  }
}
