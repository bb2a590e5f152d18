package dev.supervision.herd;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The table of a run's results and the conclusions printed under it. */
public final class ResultsTable {

  private ResultsTable() {}

  /** Where the write-up of Pekko's recursion lives, for the table's note. */
  static final String STACK_OVERFLOW_DOC = "docs/upstream-restart-stackoverflow.md";

  /**
   * What happened to a row, in one short line.
   *
   * @param r the row's result
   * @return for example {@code all recovered} or {@code horizon (30 s), 63.0 % back}
   */
  static String whatHappened(StrategyResult r) {
    if (r.allRecovered()) {
      return r.outcome();
    }
    return r.outcome()
        + String.format(Locale.ROOT, ", %.1f %% back", Math.floor(1000 * r.recoveredShare()) / 10);
  }

  /**
   * Prints the table and the conclusions under it.
   *
   * @param s the scenario
   * @param results the results
   * @param out where to print
   */
  public static void print(HerdScenario s, List<StrategyResult> results, PrintStream out) {
    boolean finite = !s.resource().unlimited();
    double limitMs = s.physicalLimit().toMillis();
    out.printf(
        Locale.ROOT,
        "%-18s %9s %9s %9s %7s %8s %8s %6s %6s %6s %6s  %s%n",
        "strategy",
        "calls",
        "in outage",
        "failed",
        "crashes",
        "peak/s",
        "max 1s",
        "p50 s",
        "p99 s",
        "all s",
        finite ? "x N/C" : "",
        "what happened");
    for (StrategyResult r : results) {
      out.printf(
          Locale.ROOT,
          "%-18s %,9d %,9d %,9d %7d %,8d %,8d %6s %6s %6s %6s  %s%n",
          r.strategy(),
          r.calls(),
          r.callsDuringOutage(),
          r.failedCallsAfterOutage(),
          r.resourceCrashes(),
          r.recoveryPeakPerSecond(),
          r.busiestSecondAfterOutage(),
          sec(r.p50RecoveredMs()),
          sec(r.p99RecoveredMs()),
          sec(r.allRecoveredMs()),
          finite && r.allRecoveredMs() != null && limitMs > 0
              ? String.format(Locale.ROOT, "%.2f", r.allRecoveredMs() / limitMs)
              : finite ? "-" : "",
          whatHappened(r));
    }
    out.println(
        "(in outage: restarts while the resource was down; failed: calls that failed after it was back;"
            + " crashes: times it was knocked over again;");
    out.println(
        " peak/s: busiest 100 ms after the outage x 10; max 1s: busiest second after it; p50/p99/all s: when"
            + " that share of cells ran again"
            + (finite ? "; x N/C: all s / N/C)" : ")"));
    out.println();
    for (String line : conclusions(s, results)) {
      out.println(line);
    }
  }

  /**
   * The lines under the table: what the table shows, in words.
   *
   * @param s the scenario
   * @param results the results
   * @return the lines
   */
  static List<String> conclusions(HerdScenario s, List<StrategyResult> results) {
    List<String> lines = new ArrayList<>();
    if (!s.resource().unlimited()) {
      long limit = s.physicalLimit().toMillis();
      lines.add(
          String.format(
              Locale.ROOT,
              "N/C: the resource needs %.1f s to serve %,d cells once at %,d/s%s;"
                  + " 'x N/C' is each row's time to bring every cell back, in those units.",
              limit / 1000.0,
              s.cells(),
              s.resource().capacityPerSecond(),
              s.resource().cold() ? " from cold" : ""));
      StringBuilder calm = new StringBuilder();
      for (StrategyResult r : results) {
        if (r.allRecovered() && r.resourceCrashes() == 0) {
          calm.append(calm.length() == 0 ? "" : ", ")
              .append(r.strategy())
              .append(
                  String.format(
                      Locale.ROOT, " (%.2f x N/C)", r.allRecoveredMs() / Math.max(1.0, limit)));
        }
      }
      lines.add(
          calm.length() == 0
              ? "No row brought every cell back without knocking the resource over again."
              : "Every cell back without knocking the resource over again: " + calm + ".");
    }
    Optional<StrategyResult> full = StrategyResult.find(results, "full");
    Optional<StrategyResult> pekko = StrategyResult.find(results, "pekko-backoff-0.2");
    Optional<StrategyResult> none = StrategyResult.find(results, "none");
    if (full.isPresent() && full.get().recoveryPeakPerSecond() > 0) {
      for (Optional<StrategyResult> other : List.of(pekko, none)) {
        if (other.isPresent() && other.get().recoveryPeakPerSecond() > 0) {
          double ratio =
              (double) other.get().recoveryPeakPerSecond() / full.get().recoveryPeakPerSecond();
          lines.add(
              String.format(
                  Locale.ROOT,
                  "Recovery peak, full jitter against %s: %,d/s against %,d/s (%s).",
                  other.get().strategy(),
                  full.get().recoveryPeakPerSecond(),
                  other.get().recoveryPeakPerSecond(),
                  ratio >= 1
                      ? String.format(Locale.ROOT, "1/%.1f", ratio)
                      : String.format(Locale.ROOT, "%.1fx", 1 / ratio)));
        }
      }
    }
    Optional<StrategyResult> budgeted = StrategyResult.find(results, Strategies.BUDGET_ID);
    if (budgeted.isPresent()) {
      long limit = Strategies.BUDGET_PER_SECOND + Strategies.budget().getBurst();
      lines.add(
          String.format(
              Locale.ROOT,
              "%s: at most %,d calls in any second after the outage; the budget allows %,d"
                  + " (%d/s + burst %d).",
              Strategies.BUDGET_ID,
              budgeted.get().busiestSecondAfterOutage(),
              limit,
              Strategies.BUDGET_PER_SECOND,
              Strategies.budget().getBurst()));
    }
    for (StrategyResult r : results) {
      if (r.outcome().contains("StackOverflowError")) {
        lines.add(
            r.strategy()
                + ": Pekko's restart() re-runs a failing setup recursively until the stack overflows;"
                + " see "
                + STACK_OVERFLOW_DOC
                + ".");
      }
    }
    return lines;
  }

  private static String sec(Double ms) {
    return ms == null ? "-" : String.format(Locale.ROOT, "%.1f", ms / 1000.0);
  }
}
