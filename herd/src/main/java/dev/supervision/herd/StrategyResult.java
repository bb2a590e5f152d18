package dev.supervision.herd;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The measurements of one strategy on one scenario, one object in {@code results.json}. Times are
 * in model milliseconds since the resource came back, rounded to 0.1 ms.
 *
 * @param strategy the strategy's id
 * @param description the strategy in words
 * @param cells the number of cells
 * @param calls calls to the resource from the start of the outage until the last cell recovered
 * @param callsDuringOutage those of the calls made while the resource was down
 * @param recoveryPeakPerSecond the most calls in any 100 ms interval that starts at or after the
 *     resource's return (a sliding window at 1 ms resolution), times 10
 * @param busiestSecondAfterOutage the most calls in any 1 s interval that starts at or after the
 *     resource's return (a sliding window at 1 ms resolution): with a restart budget, at most its
 *     permits per second plus its burst
 * @param p50RecoveredMs when half of the cells were running again, or null if they never were
 * @param p99RecoveredMs when 99 % of the cells were running again, or null if they never were
 * @param allRecoveredMs when every cell was running again, or null if some never were
 * @param recovered how many cells were running again when the run ended
 * @param outcome how the run ended: {@code all recovered}, or why not
 * @param wallMillis how long the run took in real time
 * @param callsPer100ms the calls in each 100 ms window since the outage began
 */
@JsonPropertyOrder({
  "strategy", "description", "cells", "calls", "callsDuringOutage", "recoveryPeakPerSecond",
  "busiestSecondAfterOutage", "p50RecoveredMs", "p99RecoveredMs", "allRecoveredMs", "recovered", "outcome", "wallMillis", "callsPer100ms"
})
public record StrategyResult(
    String strategy,
    String description,
    int cells,
    long calls,
    long callsDuringOutage,
    long recoveryPeakPerSecond,
    long busiestSecondAfterOutage,
    Double p50RecoveredMs,
    Double p99RecoveredMs,
    Double allRecoveredMs,
    int recovered,
    String outcome,
    long wallMillis,
    long[] callsPer100ms) {

  /**
   * Whether every cell was running again at the end of the run.
   *
   * @return {@code recovered == cells}
   */
  public boolean allRecovered() {
    return recovered == cells;
  }
}
