package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.ArrayList;
import java.util.List;

/**
 * The controller stepped by hand, one slice at a time, with every value computed from the
 * documented rules. Unless a test says otherwise: slices of 100 ms, probation 100 ms (one slice, so
 * a slice's grants are resolved two slices later), initial rate 100/s (10 per slice), least rate
 * 5/s, cut to 0.9 x goodput, tolerance 10 %, growth 20 %/s (2 % per slice), slow start x sqrt(2)
 * per slice (x 2 per round trip of 200 ms), a window and a calm period of 10 slices.
 */
final class Steps {

  static final long S = 100_000_000L;
  static final long NG = AdaptiveRateController.NOT_GRANTED;

  private Steps() {}

  /**
   * A listener that writes every event to {@code events}, by slice: {@code "3 HOLDING->RAMPING
   * PROBE_SURVIVED"}, {@code "4 rate 100.0->45.0 50.0 LOSS"}, {@code "1 probe 1"}.
   */
  static AdaptiveRateController.Listener recorder(List<String> events) {
    return new AdaptiveRateController.Listener() {
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
  }

  static int take(AdaptiveRateController c, long k, int n) {
    int granted = 0;
    for (int i = 0; i < n && c.tryAcquire(k * S); i++) {
      granted++;
    }
    return granted;
  }

  /** How many of a slice's {@code offered} calls the resource serves in slice {@code k}. */
  @FunctionalInterface
  interface Resource {
    int accepts(long k, int offered);
  }

  /** One slice of {@link #slices}: the restarts granted and the calls the resource served. */
  record Slice(int granted, int served) {}

  /**
   * Slices {@code from} to {@code to} of grants to 5,000 waiting actors (all failed at slice 0 when
   * {@code from} is 1): each slice takes every permit, the resource serves what {@code r} accepts
   * and the other grants fail at once and wait again.
   */
  static List<Slice> slices(AdaptiveRateController c, Resource r, long from, long to) {
    int waiting = 5_000;
    if (from == 1) {
      for (int i = 0; i < waiting; i++) {
        c.onFailure(0, NG);
      }
    }
    List<Slice> slices = new ArrayList<>();
    for (long k = from; k <= to; k++) {
      long now = k * S;
      c.onSlice(now, waiting);
      int g = 0;
      while (g < 100_000 && c.tryAcquire(now)) {
        g++;
      }
      int ok = Math.max(0, Math.min(g, r.accepts(k, g)));
      for (int i = ok; i < g; i++) {
        c.onFailure(now, now);
      }
      slices.add(new Slice(g, ok));
    }
    return slices;
  }

  /**
   * Holds at slice 0 (one failure is enough), probes at slice 1; the probe survives. The events so
   * far are cleared.
   */
  static AdaptiveRateController rampingAtSlice3(Parameters p, int waiting, List<String> events) {
    AdaptiveRateController c = new AdaptiveRateController(p.withHoldAfter(1), recorder(events));
    c.onFailure(0, NG);
    assertEquals(1, c.onSlice(S, waiting));
    assertTrue(c.tryAcquire(S));
    c.onSlice(2 * S, waiting);
    c.onSlice(3 * S, waiting);
    assertEquals(State.RAMPING, c.state());
    events.clear();
    return c;
  }
}
