package dev.supervision.herd;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one strategy's run did to the resource: the calls per model millisecond since the outage
 * began and when each cell first called it successfully afterwards. Thread-safe: in real mode the
 * cells record concurrently.
 */
public final class CallTrace {

  /** The width of one chart and peak window, in model milliseconds. */
  public static final int WINDOW_MS = 100;

  private final int cells;
  private final long outageNanos;
  private final AtomicLongArray callsPerMs;
  private final LongAdder calls = new LongAdder();
  private final LongAdder callsDuringOutage = new LongAdder();
  private final LongAdder failedAfterOutage = new LongAdder();
  private final AtomicLongArray recoveredAtNanos;
  private final AtomicInteger recovered = new AtomicInteger();

  /**
   * An empty trace.
   *
   * @param cells the number of cells
   * @param outageNanos the outage in model nanoseconds
   * @param horizonNanos the longest run in model nanoseconds; later calls are counted in the last
   *     millisecond
   */
  public CallTrace(int cells, long outageNanos, long horizonNanos) {
    this.cells = cells;
    this.outageNanos = outageNanos;
    this.callsPerMs =
        new AtomicLongArray((int) Math.min(Integer.MAX_VALUE - 8, horizonNanos / 1_000_000 + 2));
    this.recoveredAtNanos = new AtomicLongArray(cells);
    for (int i = 0; i < cells; i++) {
      recoveredAtNanos.set(i, -1);
    }
  }

  /**
   * Records the call with which a cell finds out that the outage struck: it fails, whatever the
   * resource's state (its connection broke). Counted in {@code calls} and the chart, not in the
   * outage's or the recovery's figures.
   *
   * @param atNanos when, in model nanoseconds since the outage began
   */
  public void strike(long atNanos) {
    count(atNanos);
  }

  /**
   * Records one restart's call to the resource.
   *
   * @param atNanos when, in model nanoseconds since the outage began
   * @param outcome what the resource answered
   */
  public void call(long atNanos, CapacityResource.Outcome outcome) {
    count(atNanos);
    if (atNanos < outageNanos) {
      callsDuringOutage.increment();
    } else if (outcome.failed()) {
      failedAfterOutage.increment();
    }
  }

  private void count(long atNanos) {
    calls.increment();
    long ms = Math.max(0, atNanos / 1_000_000);
    callsPerMs.incrementAndGet((int) Math.min(ms, callsPerMs.length() - 1));
  }

  /**
   * Records that a cell called the resource successfully; only the first success counts.
   *
   * @param cell the cell's index
   * @param atNanos when, in model nanoseconds since the outage began
   */
  public void succeeded(int cell, long atNanos) {
    if (recoveredAtNanos.get(cell) < 0 && recoveredAtNanos.compareAndSet(cell, -1, atNanos)) {
      recovered.incrementAndGet();
    }
  }

  /**
   * How many cells have called the resource successfully since the outage began.
   *
   * @return the number of running cells
   */
  public int recovered() {
    return recovered.get();
  }

  /**
   * The calls recorded so far.
   *
   * @return the number of calls
   */
  public long calls() {
    return calls.sum();
  }

  /**
   * The metrics of this trace.
   *
   * @param strategy the strategy's id
   * @param description the strategy's description
   * @param wallMillis how long the run took in real time
   * @param outcome how the run ended, in words
   * @param crashes when the resource was knocked over again, in model nanoseconds
   * @return the result
   */
  public StrategyResult result(
      String strategy, String description, long wallMillis, String outcome, List<Long> crashes) {
    int length = callsPerMs.length();
    int last = 0;
    for (int i = length - 1; i >= 0; i--) {
      if (callsPerMs.get(i) != 0) {
        last = i;
        break;
      }
    }
    int outageMs = (int) Math.min(length, (outageNanos + 999_999) / 1_000_000);
    // Chart windows are aligned to the outage's start.
    int windows = last / WINDOW_MS + 1;
    long[] perWindow = new long[windows];
    for (int i = 0; i <= last; i++) {
      perWindow[i / WINDOW_MS] += callsPerMs.get(i);
    }
    // The recovery peak is the busiest 100 ms interval that starts at or after the resource's
    // return, at 1 ms resolution (a sliding window), so it does not depend on where the windows
    // fall.
    long peakWindow = busiest(outageMs, last, WINDOW_MS);
    long busiestSecond = busiest(outageMs, last, 1000);
    long[] times = new long[recovered.get()];
    int n = 0;
    for (int i = 0; i < cells && n < times.length; i++) {
      long t = recoveredAtNanos.get(i);
      if (t >= 0) {
        times[n++] = Math.max(0, t - outageNanos);
      }
    }
    times = Arrays.copyOf(times, n);
    Arrays.sort(times);
    return new StrategyResult(
        strategy,
        description,
        cells,
        calls.sum(),
        callsDuringOutage.sum(),
        failedAfterOutage.sum(),
        crashes.size(),
        peakWindow * (1000 / WINDOW_MS),
        busiestSecond,
        percentileMillis(times, 0.50),
        percentileMillis(times, 0.99),
        percentileMillis(times, 1.00),
        n,
        outcome,
        wallMillis,
        perWindow,
        crashes.stream().mapToLong(t -> t / 1_000_000).toArray(),
        List.of(),
        null);
  }

  /** The most calls in any {@code widthMs} interval starting in {@code [fromMs, lastMs]}. */
  private long busiest(int fromMs, int lastMs, int widthMs) {
    long peak = 0;
    long sum = 0;
    for (int i = fromMs; i <= lastMs; i++) {
      sum += callsPerMs.get(i);
      if (i - widthMs >= fromMs) {
        sum -= callsPerMs.get(i - widthMs);
      }
      peak = Math.max(peak, sum);
    }
    return peak;
  }

  /** The time by which {@code ceil(p * cells)} cells had recovered, or null if fewer did. */
  private Double percentileMillis(long[] sortedNanos, double p) {
    int rank = (int) Math.ceil(p * cells);
    if (rank < 1 || rank > sortedNanos.length) {
      return null;
    }
    return Math.round(sortedNanos[rank - 1] / 100_000.0) / 10.0;
  }
}
