package dev.supervision.herd;

import java.util.Locale;
import java.util.PriorityQueue;

/**
 * The exact mode: a discrete-event simulation of the herd. Every event (a cell's call to the
 * resource, a wake-up of a herd-wide gate) happens at an exact model time in nanoseconds, processing
 * takes no time, and ties are broken by the cell's index (a gate's wake-up first), so a seed gives
 * the same result on every machine and every run.
 *
 * <p>The delays come from each strategy's {@link HerdStrategy.ExactRun}: for this library that is
 * {@code BackoffPolicy.delays}, the same schedule the supervisor draws from; for Pekko's backoff it is
 * a model of Pekko's formula with a seeded random source. The resource is the same {@link
 * CapacityResource} that real mode uses.
 */
public final class ExactHerd {

  private ExactHerd() {}

  /** A pending event: a restart that is due (or released by the gate), or a gate wake-up (cell -1). */
  private record Event(long atNanos, int cell, int attempt, boolean admitted)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
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
        strategy
            .exact(scenario)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        strategy.id()
                            + " has no exact model (its calls depend on the machine's speed); run it without --exact"));
    HerdStrategy.ExactGate gate = model.gate();
    int cells = scenario.cells();
    long outage = scenario.outage().toNanos();
    long horizon = scenario.horizon(strategy.extraTime(scenario)).toNanos();
    CallTrace trace = new CallTrace(cells, outage, horizon);
    CapacityResource resource = new CapacityResource(scenario.resource(), outage);
    int[] attempts = new int[cells];
    PriorityQueue<Event> queue = new PriorityQueue<>(cells);
    // The outage strikes at 0: every cell's next call fails at once.
    for (int cell = 0; cell < cells; cell++) {
      trace.strike(0);
      gate.failed(cell, 0);
      attempts[cell] = 1;
      queue.add(new Event(delay(model, cell, 1, 0), cell, 1, false));
    }
    long scheduledWake = Long.MAX_VALUE;
    long nextReport = 0;
    long last = 0;
    boolean stopped = false;
    while (!queue.isEmpty()) {
      Event e = queue.poll();
      if (e.atNanos > horizon) {
        stopped = true;
        break;
      }
      long now = e.atNanos;
      last = now;
      if (now >= nextReport) {
        progress.update(
            row, rows, strategy.id(), now / 1_000_000, trace.recovered(), cells, trace.calls());
        nextReport = now + 100_000_000L;
      }
      if (e.cell < 0) {
        if (now == scheduledWake) {
          scheduledWake = Long.MAX_VALUE;
          gate.wake(now, cell -> queue.add(new Event(now, cell, attempts[cell], true)));
        }
      } else if (e.admitted || gate.offer(e.cell, now)) {
        // The restart runs Behaviors.setup, which connects to the resource.
        CapacityResource.Outcome outcome = resource.call(now);
        trace.call(now, outcome);
        if (outcome.failed()) {
          gate.failed(e.cell, now);
          int attempt = ++attempts[e.cell];
          queue.add(new Event(now + delay(model, e.cell, attempt, now), e.cell, attempt, false));
        } else {
          trace.succeeded(e.cell, now);
        }
      }
      long wake = gate.nextWakeNanos();
      if (wake != Long.MAX_VALUE && wake != scheduledWake) {
        if (wake < now) {
          throw new IllegalStateException(
              "the gate asked to be woken in the past: " + wake + " < " + now);
        }
        scheduledWake = wake;
        queue.add(new Event(wake, -1, 0, false));
      }
    }
    long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
    progress.update(
        row, rows, strategy.id(), last / 1_000_000, trace.recovered(), cells, trace.calls());
    String outcome =
        trace.recovered() == cells
            ? "all recovered"
            : stopped
                ? String.format(
                    Locale.ROOT,
                    "stopped at the horizon (%d s)",
                    (horizon - outage) / 1_000_000_000L)
                : "not all recovered";
    StrategyResult result =
        trace.result(
            strategy.id(), strategy.description(), wallMillis, outcome, resource.crashes());
    return gate instanceof ClusterGate cluster ? result.withNodes(cluster.perNode()) : result;
  }

  private static long delay(HerdStrategy.ExactRun model, int cell, int attempt, long failedAt) {
    long d = model.restartDelayNanos(cell, attempt, failedAt);
    if (d < 0) {
      throw new IllegalStateException("negative restart delay " + d + " ns for cell " + cell);
    }
    return d;
  }
}
