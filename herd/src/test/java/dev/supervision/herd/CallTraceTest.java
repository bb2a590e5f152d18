package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class CallTraceTest {

  private static final long MS = 1_000_000L;

  @Test
  void call_isDownBeforeTheOutageEnds_andUpFromItsEnd() {
    CallTrace t = new CallTrace(1, 2000 * MS, 10_000 * MS);
    assertTrue(t.call(2000 * MS - 1));
    assertFalse(t.call(2000 * MS));
  }

  @Test
  void recoveryPeak_isTheBusiest100msAfterTheReturn_wherever_itFalls() {
    CallTrace t = new CallTrace(10, 2000 * MS, 10_000 * MS);
    for (int i = 0; i < 50; i++) {
      t.call(1900 * MS); // during the outage: not part of the recovery peak
    }
    // 10 calls from 2150 ms to 2240 ms: they straddle the aligned windows [2100, 2200) and
    // [2200, 2300) but fit into one 100 ms interval
    for (int i = 0; i < 10; i++) {
      t.call((2150 + 10 * i) * MS);
      t.succeeded(i, (2150 + 10 * i) * MS);
    }
    StrategyResult r = t.result("x", "x", 0, "all recovered");
    assertEquals(100, r.recoveryPeakPerSecond());
    assertEquals(60, r.calls());
    assertEquals(50, r.callsDuringOutage());
  }

  @Test
  void percentiles_areTheTimesByWhichThatShareOfAllCellsRecovered() {
    CallTrace t = new CallTrace(4, 1000 * MS, 10_000 * MS);
    t.succeeded(0, 1100 * MS);
    t.succeeded(1, 1300 * MS);
    t.succeeded(2, 1200 * MS);
    t.succeeded(2, 1250 * MS); // only the first success counts
    StrategyResult r = t.result("x", "x", 0, "x");
    assertEquals(200.0, r.p50RecoveredMs()); // 2 of 4 by 200 ms after the return
    assertNull(r.p99RecoveredMs()); // the 4th cell never recovered
    assertNull(r.allRecoveredMs());
    assertEquals(3, r.recovered());
    assertFalse(r.allRecovered());
  }

  @Test
  void chartWindows_count100msEach_fromTheStartOfTheOutage() {
    CallTrace t = new CallTrace(1, 1000 * MS, 10_000 * MS);
    t.call(0);
    t.call(99 * MS);
    t.call(100 * MS);
    t.call(350 * MS);
    assertArrayEquals(new long[] {2, 1, 0, 1}, t.result("x", "x", 0, "x").callsPer100ms());
  }
}
