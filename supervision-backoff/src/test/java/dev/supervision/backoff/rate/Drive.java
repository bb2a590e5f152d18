package dev.supervision.backoff.rate;

import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;

/** Drives a controller against a resource that serves {@code capacityPerSlice} calls per slice. */
final class Drive {
  static final long SLICE = 100_000_000L;
  static final int MAX_GRANTS_PER_SLICE = 1_000_000;

  final AdaptiveRateController c;
  int waiting;
  final List<Integer> grantsPerSlice = new ArrayList<>();

  Drive(AdaptiveRateController c, int waiting) {
    this.c = c;
    this.waiting = waiting;
  }

  /** Everyone fails at t = 0 (not granted). */
  Drive allFailAtZero() {
    for (int i = 0; i < waiting; i++) {
      c.onFailure(0, AdaptiveRateController.NOT_GRANTED);
    }
    return this;
  }

  /**
   * One slice: grants while permitted; the first {@code capacity} grants succeed, the rest fail at
   * once (and wait again).
   */
  int slice(long k, int capacity) {
    long now = k * SLICE;
    c.onSlice(now, waiting);
    int grants = 0;
    // bounded, so that a broken controller that grants for ever fails the test instead of hanging
    // it
    while (waiting > 0 && grants < MAX_GRANTS_PER_SLICE && c.tryAcquire(now)) {
      grants++;
      waiting--;
      if (grants > capacity) {
        c.onFailure(now, now);
        waiting++;
      }
    }
    grantsPerSlice.add(grants);
    return grants;
  }

  /**
   * A listener that writes to {@code log}, by slice: state changes ({@code "0 HOLDING FAILURES"}),
   * cuts ({@code "31 rate 900 goodput 1000"}) and probes ({@code "1 probe 1"}).
   */
  static AdaptiveRateController.Listener log(List<String> log) {
    return new AdaptiveRateController.Listener() {
      @Override
      public void stateChanged(State from, State to, Reason reason, long nowNanos) {
        log.add(nowNanos / SLICE + " " + to + " " + reason);
      }

      @Override
      public void rateChanged(
          double from, double to, double goodput, Reason reason, long nowNanos) {
        if (reason == Reason.LOSS) {
          log.add(nowNanos / SLICE + " rate " + Math.round(to) + " goodput " + Math.round(goodput));
        }
      }

      @Override
      public void probe(int probes, long nowNanos) {
        log.add(nowNanos / SLICE + " probe " + probes);
      }
    };
  }

  List<Integer> run(long from, long to, int capacity) {
    List<Integer> out = new ArrayList<>();
    for (long k = from; k < to; k++) {
      out.add(slice(k, capacity));
    }
    return out;
  }
}
