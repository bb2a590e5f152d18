package dev.supervision.herd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Optional;

/**
 * The measurements of one strategy on one scenario, one object in {@code results.json}. Times are
 * in model milliseconds since the resource came back, rounded to 0.1 ms.
 *
 * @param strategy the strategy's id
 * @param description the strategy in words
 * @param cells the number of cells
 * @param calls every call to the resource from the start of the outage until the row ended: the
 *     failing call of every cell when the outage struck, every restart, every success
 * @param callsDuringOutage restarts (calls) made while the resource was down for the outage, not
 *     counting the one failing call per cell when it struck
 * @param failedCallsAfterOutage calls that failed after the outage ended: the resource over its
 *     capacity, or down again after a crash
 * @param resourceCrashes how many times the resource was knocked over again after the outage
 * @param recoveryPeakPerSecond the most calls in any 100 ms interval that starts at or after the
 *     resource's return (a sliding window at 1 ms resolution), times 10
 * @param busiestSecondAfterOutage the most calls in any 1 s interval that starts at or after the
 *     resource's return (a sliding window at 1 ms resolution): with a restart budget, at most its
 *     permits per second plus its burst
 * @param p50RecoveredMs when half of the cells were running again, or null if they never were
 * @param p99RecoveredMs when 99 % of the cells were running again, or null if they never were
 * @param allRecoveredMs when every cell was running again, or null if some never were
 * @param recovered how many cells were running again when the row ended
 * @param outcome how the row ended, in one short line: {@code all recovered}, or why not
 * @param wallMillis how long the row took in real time
 * @param callsPer100ms the calls in each 100 ms window since the outage began
 * @param crashTimesMs when the resource was knocked over again, in model ms since the outage began
 * @param nodes per cluster node (exact mode, a row on more than one node): its cells, grants,
 *     probes and state changes; empty otherwise
 * @param logLines real mode: the WARN and ERROR lines in the row's log file (everything its
 *     {@code ActorSystem} logged, its shutdown included); null in exact mode
 */
@JsonPropertyOrder({
  "strategy",
  "description",
  "cells",
  "calls",
  "callsDuringOutage",
  "failedCallsAfterOutage",
  "resourceCrashes",
  "recoveryPeakPerSecond",
  "busiestSecondAfterOutage",
  "p50RecoveredMs",
  "p99RecoveredMs",
  "allRecoveredMs",
  "recovered",
  "recoveredShare",
  "outcome",
  "wallMillis",
  "logLines",
  "crashTimesMs",
  "callsPer100ms"
})
public record StrategyResult(
    String strategy,
    String description,
    int cells,
    long calls,
    long callsDuringOutage,
    long failedCallsAfterOutage,
    int resourceCrashes,
    long recoveryPeakPerSecond,
    long busiestSecondAfterOutage,
    Double p50RecoveredMs,
    Double p99RecoveredMs,
    Double allRecoveredMs,
    int recovered,
    String outcome,
    long wallMillis,
    long[] callsPer100ms,
    long[] crashTimesMs,
    java.util.List<java.util.Map<String, Object>> nodes,
    Long logLines) {

  /**
   * Whether every cell was running again at the end of the row.
   *
   * @return {@code recovered == cells}
   */
  public boolean allRecovered() {
    return recovered == cells;
  }

  /**
   * The share of cells running again when the row ended.
   *
   * @return {@code recovered / cells}, in {@code [0, 1]}
   */
  @JsonProperty("recoveredShare")
  public double recoveredShare() {
    return recovered / (double) cells;
  }

  /**
   * The same result with another outcome line.
   *
   * @param text the new outcome
   * @return the new result
   */
  public StrategyResult withOutcome(String text) {
    return with(text, nodes, logLines);
  }

  /**
   * The same result with per-node figures.
   *
   * @param perNode the figures, one map per node
   * @return the new result
   */
  public StrategyResult withNodes(java.util.List<java.util.Map<String, Object>> perNode) {
    return with(outcome, java.util.List.copyOf(perNode), logLines);
  }

  /**
   * The same result with the count of its log lines.
   *
   * @param lines the WARN and ERROR lines in the row's log file
   * @return the new result
   */
  public StrategyResult withLogLines(long lines) {
    return with(outcome, nodes, lines);
  }

  private StrategyResult with(
      String text, java.util.List<java.util.Map<String, Object>> perNode, Long lines) {
    return new StrategyResult(
        strategy,
        description,
        cells,
        calls,
        callsDuringOutage,
        failedCallsAfterOutage,
        resourceCrashes,
        recoveryPeakPerSecond,
        busiestSecondAfterOutage,
        p50RecoveredMs,
        p99RecoveredMs,
        allRecoveredMs,
        recovered,
        text,
        wallMillis,
        callsPer100ms,
        crashTimesMs,
        perNode,
        lines);
  }

  /**
   * Looks a result up by strategy id.
   *
   * @param results the results
   * @param id a strategy id
   * @return the result, if that strategy ran
   */
  public static Optional<StrategyResult> find(List<StrategyResult> results, String id) {
    return results.stream().filter(r -> r.strategy().equals(id)).findFirst();
  }
}
