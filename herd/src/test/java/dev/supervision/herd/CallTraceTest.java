package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.supervision.herd.CapacityResource.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

final class CallTraceTest {

  private static final long MS = 1_000_000L;

  @Test
  void recoveryPeak_isTheBusiest100msAfterTheReturn_wherever_itFalls() {
    CallTrace t = new CallTrace(10, 2000 * MS, 10_000 * MS);
    for (int i = 0; i < 50; i++) {
      t.call(1900 * MS, Outcome.DOWN); // during the outage: not part of the recovery peak
    }
    // 10 calls from 2150 ms to 2240 ms: they straddle the aligned windows [2100, 2200) and
    // [2200, 2300) but fit into one 100 ms interval
    for (int i = 0; i < 10; i++) {
      t.call((2150 + 10 * i) * MS, Outcome.OK);
      t.succeeded(i, (2150 + 10 * i) * MS);
    }
    StrategyResult r = t.result("x", "x", 0, "all recovered", List.of());
    assertEquals(100, r.recoveryPeakPerSecond());
    assertEquals(60, r.calls());
    assertEquals(50, r.callsDuringOutage());
    assertEquals(0, r.failedCallsAfterOutage());
  }

  @Test
  void theStrike_countsAsACall_butNotAsACallDuringTheOutage() {
    CallTrace t = new CallTrace(3, 1000 * MS, 10_000 * MS);
    for (int i = 0; i < 3; i++) {
      t.strike(0);
    }
    t.call(500 * MS, Outcome.DOWN);
    StrategyResult r = t.result("x", "x", 0, "x", List.of());
    assertEquals(4, r.calls());
    assertEquals(1, r.callsDuringOutage());
  }

  @Test
  void failedCallsAfterOutage_countOverloadedAndCrashedCalls_afterTheReturnOnly() {
    CallTrace t = new CallTrace(1, 1000 * MS, 10_000 * MS);
    t.call(999 * MS, Outcome.DOWN);
    t.call(1000 * MS, Outcome.OVERLOADED);
    t.call(1500 * MS, Outcome.DOWN);
    t.call(1600 * MS, Outcome.OK);
    StrategyResult r = t.result("x", "x", 0, "x", List.of(1200 * MS));
    assertEquals(2, r.failedCallsAfterOutage());
    assertEquals(1, r.resourceCrashes());
    assertArrayEquals(new long[] {1200}, r.crashTimesMs());
  }

  @Test
  void percentiles_areTheTimesByWhichThatShareOfAllCellsRecovered() {
    CallTrace t = new CallTrace(4, 1000 * MS, 10_000 * MS);
    t.succeeded(0, 1100 * MS);
    t.succeeded(1, 1300 * MS);
    t.succeeded(2, 1200 * MS);
    t.succeeded(2, 1250 * MS); // only the first success counts
    StrategyResult r = t.result("x", "x", 0, "x", List.of());
    assertEquals(200.0, r.p50RecoveredMs()); // 2 of 4 by 200 ms after the return
    assertNull(r.p99RecoveredMs()); // the 4th cell never recovered
    assertNull(r.allRecoveredMs());
    assertEquals(3, r.recovered());
    assertEquals(0.75, r.recoveredShare());
    assertFalse(r.allRecovered());
  }

  @Test
  void chartWindows_count100msEach_fromTheStartOfTheOutage() {
    CallTrace t = new CallTrace(1, 1000 * MS, 10_000 * MS);
    t.strike(0);
    t.call(99 * MS, Outcome.DOWN);
    t.call(100 * MS, Outcome.DOWN);
    t.call(350 * MS, Outcome.DOWN);
    assertArrayEquals(
        new long[] {2, 1, 0, 1}, t.result("x", "x", 0, "x", List.of()).callsPer100ms());
  }
}
