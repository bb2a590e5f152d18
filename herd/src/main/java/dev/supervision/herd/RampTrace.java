package dev.supervision.herd;

import dev.supervision.backoff.rate.AdaptiveRateController;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * Where an adaptive row's time goes, 100 ms at a time: runs the {@code adaptive} row of the exact
 * mode (one node or a coordinated cluster) and prints, for every 100 ms of model time, the grants,
 * the calls that failed and succeeded, the summed rate of the nodes' controllers, how many nodes
 * hold, ramp or are steady, and where the actors are: waiting for a permit, sleeping their own
 * backoff delay (and how many of those wake more than 500 ms later), or back. Optionally the
 * waiting actors and the rate of the first nodes.
 *
 * <pre>
 * java -cp herd/target/herd.jar dev.supervision.herd.RampTrace --capacity 2000 [--nodes 10]
 *     [--skew half] [--cold] [any other option of the herd] [--show 10]
 * </pre>
 *
 * <p>{@code --show K} adds the waiting actors and the rate of the first K nodes. A tool for reading
 * a ramp, not a measurement of its own: the run is that of {@code herd --exact --strategies
 * adaptive} with the same options.
 */
public final class RampTrace {

  private static final long STEP = 100_000_000L;
  private static final long LATE = 500_000_000L;

  private static final int SLEEPING = 0;
  private static final int WAITING = 1;
  private static final int GRANTED = 2;

  private final int cells;
  private final int show;
  private final long[] due;
  private final int[] where;
  private final long[] grantedAt;
  private final TreeMap<Long, int[]> calls = new TreeMap<>();
  private final TreeMap<Long, String> samples = new TreeMap<>();
  private long sampled = -1;

  RampTrace(int cells, int show) {
    this.cells = cells;
    this.show = show;
    this.due = new long[cells];
    this.where = new int[cells];
    this.grantedAt = new long[cells];
  }

  /**
   * Runs the trace and prints it on standard output.
   *
   * @param args the herd's options, and {@code --show K}
   */
  public static void main(String[] args) {
    List<String> herd = new ArrayList<>(List.of(args));
    int show = 0;
    int i = herd.indexOf("--show");
    if (i >= 0 && i + 1 < herd.size()) {
      show = Integer.parseInt(herd.get(i + 1));
      herd.subList(i, i + 2).clear();
    }
    HerdScenario s = HerdCommand.exactAdaptive(herd.toArray(new String[0]));
    new RampTrace(s.cells(), show).run(s, System.out);
  }

  /**
   * Runs the scenario's adaptive row and prints its trace.
   *
   * @param s the scenario
   * @param out where to print
   */
  void run(HerdScenario s, PrintStream out) {
    HerdStrategy.ExactRun model = new OursAdaptive("adaptive", s).exact(s).orElseThrow();
    HerdStrategy.ExactGate gate = model.gate();
    HerdStrategy.ExactGate traced = traced(gate);
    HerdStrategy.ExactRun run =
        new HerdStrategy.ExactRun() {
          @Override
          public long restartDelayNanos(int index, int attempt, long failedAtNanos) {
            long d = model.restartDelayNanos(index, attempt, failedAtNanos);
            due[index] = failedAtNanos + d;
            return d;
          }

          @Override
          public HerdStrategy.ExactGate gate() {
            return traced;
          }
        };
    HerdStrategy strategy =
        new NamedStrategy("adaptive", "adaptive, traced") {
          @Override
          public RealRun real(HerdScenario scenario) {
            throw new UnsupportedOperationException("exact mode only");
          }

          @Override
          public Optional<ExactRun> exact(HerdScenario scenario) {
            return Optional.of(run);
          }
        };
    StrategyResult r = ExactHerd.run(strategy, s, Progress.NONE, 1, 1);
    double limitMs = s.physicalLimit().toNanos() / 1e6;
    out.println(
        r.allRecoveredMs() == null
            ? "not every actor back"
            : String.format(
                Locale.ROOT,
                "every actor back %.0f ms after the outage (%.2f x N/C), %d failed calls after it",
                r.allRecoveredMs(),
                r.allRecoveredMs() / limitMs,
                r.failedCallsAfterOutage()));
    out.println(
        "  t ms  grants failed    ok |  rate sum  hold ramp steady | waiting sleeping (late)   back");
    long last = calls.isEmpty() ? 0 : calls.lastKey();
    for (var e : samples.entrySet()) {
      if (e.getKey() * STEP < s.outage().toNanos() - 5 * STEP || e.getKey() > last + 2) {
        continue;
      }
      int[] c = calls.getOrDefault(e.getKey(), new int[2]);
      out.printf(
          Locale.ROOT,
          "%6d %7d %6d %5d | %s%n",
          e.getKey() * 100,
          c[0],
          c[1],
          c[0] - c[1],
          e.getValue());
    }
  }

  private HerdStrategy.ExactGate traced(HerdStrategy.ExactGate gate) {
    return new HerdStrategy.ExactGate() {
      @Override
      public void failed(int cell, long nowNanos) {
        if (where[cell] == GRANTED && grantedAt[cell] == nowNanos && nowNanos > 0) {
          calls.computeIfAbsent(nowNanos / STEP, k -> new int[2])[1]++;
        }
        where[cell] = SLEEPING;
        gate.failed(cell, nowNanos);
      }

      @Override
      public boolean offer(int cell, long nowNanos) {
        sample(gate, nowNanos);
        boolean granted = gate.offer(cell, nowNanos);
        if (granted) {
          granted(cell, nowNanos);
        } else {
          where[cell] = WAITING;
        }
        return granted;
      }

      @Override
      public long nextWakeNanos() {
        return gate.nextWakeNanos();
      }

      @Override
      public void wake(long nowNanos, IntConsumer release) {
        sample(gate, nowNanos);
        gate.wake(
            nowNanos,
            cell -> {
              granted(cell, nowNanos);
              release.accept(cell);
            });
      }
    };
  }

  private void granted(int cell, long nowNanos) {
    where[cell] = GRANTED;
    grantedAt[cell] = nowNanos;
    calls.computeIfAbsent(nowNanos / STEP, k -> new int[2])[0]++;
  }

  /** The state at the first event of each 100 ms, before the gate handles it. */
  private void sample(HerdStrategy.ExactGate gate, long nowNanos) {
    long step = nowNanos / STEP;
    if (step == sampled) {
      return;
    }
    sampled = step;
    int waiting = 0;
    int sleeping = 0;
    int late = 0;
    for (int i = 0; i < cells; i++) {
      if (where[i] == WAITING) {
        waiting++;
      } else if (where[i] == SLEEPING) {
        sleeping++;
        if (due[i] > nowNanos + LATE) {
          late++;
        }
      }
    }
    List<ClusterGate.View> views =
        gate instanceof ClusterGate cluster
            ? cluster.views()
            : List.of(
                new ClusterGate.View(
                    ((AdaptiveGate) gate).controller().state(),
                    ((AdaptiveGate) gate).controller().rate(),
                    ((AdaptiveGate) gate).waitingCount()));
    double rate = 0;
    int[] states = new int[3];
    StringBuilder nodes = new StringBuilder();
    int shown = 0;
    for (ClusterGate.View v : views) {
      states[v.state().ordinal()]++;
      if (v.state() == AdaptiveRateController.State.RAMPING) {
        rate += v.rate();
      }
      if (shown++ < show) {
        nodes.append(
            String.format(
                Locale.ROOT,
                " %s%d/%.0f",
                v.state().name().charAt(0),
                v.waiting(),
                Math.min(v.rate(), 1e9)));
      }
    }
    samples.put(
        step,
        String.format(
            Locale.ROOT,
            "%9.0f %5d %4d %6d | %7d %8d (%4d) %6d%s",
            rate,
            states[AdaptiveRateController.State.HOLDING.ordinal()],
            states[AdaptiveRateController.State.RAMPING.ordinal()],
            states[AdaptiveRateController.State.STEADY.ordinal()],
            waiting,
            sleeping,
            late,
            cells - waiting - sleeping,
            nodes.length() == 0 ? "" : " |" + nodes));
  }
}
