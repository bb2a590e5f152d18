package dev.supervision.herd;

import java.util.PriorityQueue;

/**
 * The exact mode: a discrete-event simulation of the herd. Every event (a cell's call to the
 * resource) happens at an exact model time in nanoseconds, processing takes no time, and ties are
 * broken by the cell's index, so a seed gives the same result on every machine and every run.
 *
 * <p>The delays come from each strategy's {@link HerdStrategy.ExactRun}: for this library that is
 * {@code BackoffPolicy.delays}, the same schedule the supervisor draws from; for Pekko's backoff it is
 * a model of Pekko's formula with a seeded random source.
 */
public final class ExactHerd {

  private ExactHerd() {}

  /** A pending restart. */
  private record Restart(long atNanos, int cell, int attempt, boolean admitted) implements Comparable<Restart> {
    @Override
    public int compareTo(Restart o) {
      int byTime = Long.compare(atNanos, o.atNanos);
      return byTime != 0 ? byTime : Integer.compare(cell, o.cell);
    }
  }

  /**
   * Runs one strategy on the scenario.
   *
   * @param strategy the strategy
   * @param scenario the scenario
   * @param progress told about the run every 100 ms of model time
   * @param row this strategy's row, 1-based, for the progress
   * @param rows the number of rows
   * @return the measurements
   * @throws IllegalArgumentException if the strategy has no exact model
   */
  public static StrategyResult run(
      HerdStrategy strategy, HerdScenario scenario, Progress progress, int row, int rows) {
    long wallStart = System.nanoTime();
    HerdStrategy.ExactRun model =
        strategy.exact(scenario).orElseThrow(() -> new IllegalArgumentException(
            strategy.id() + " has no exact model (its calls depend on the machine's speed); run it without --exact"));
    int cells = scenario.cells();
    long outage = scenario.outage().toNanos();
    CallTrace trace = new CallTrace(cells, outage, scenario.horizon().toNanos());
    PriorityQueue<Restart> queue = new PriorityQueue<>(cells);
    // The outage strikes at 0: every cell's next call fails at once.
    for (int cell = 0; cell < cells; cell++) {
      trace.call(0);
      queue.add(new Restart(delay(model, cell, 1, 0), cell, 1, false));
    }
    long nextReport = 0;
    long last = 0;
    while (!queue.isEmpty()) {
      Restart r = queue.poll();
      last = r.atNanos;
      if (r.atNanos >= nextReport) {
        progress.update(row, rows, strategy.id(), r.atNanos / 1_000_000, trace.recovered(), cells, trace.calls());
        nextReport = r.atNanos + 100_000_000L;
      }
      if (!r.admitted) {
        long at = model.admitNanos(r.cell, r.atNanos);
        if (at < r.atNanos) {
          throw new IllegalStateException("admitted before due: " + at + " < " + r.atNanos);
        }
        if (at > r.atNanos) {
          queue.add(new Restart(at, r.cell, r.attempt, true));
          continue;
        }
      }
      // The restart runs Behaviors.setup, which connects to the resource.
      if (trace.call(r.atNanos)) {
        int attempt = r.attempt + 1;
        queue.add(new Restart(r.atNanos + delay(model, r.cell, attempt, r.atNanos), r.cell, attempt, false));
      } else {
        trace.succeeded(r.cell, r.atNanos);
      }
    }
    long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
    progress.update(row, rows, strategy.id(), last / 1_000_000, trace.recovered(), cells, trace.calls());
    return trace.result(strategy.id(), strategy.description(), wallMillis,
        trace.recovered() == cells ? "all recovered" : "not all recovered");
  }

  private static long delay(HerdStrategy.ExactRun model, int cell, int attempt, long failedAt) {
    long d = model.restartDelayNanos(cell, attempt, failedAt);
    if (d < 0) {
      throw new IllegalStateException("negative restart delay " + d + " ns for cell " + cell);
    }
    return d;
  }
}
