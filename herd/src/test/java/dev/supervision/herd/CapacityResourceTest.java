package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.herd.CapacityResource.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

final class CapacityResourceTest {

  private static final long MS = 1_000_000L;

  private static ResourceSpec spec(int capacity, double crashFactor, boolean cold) {
    return new ResourceSpec(capacity, crashFactor, Duration.ofSeconds(1), cold);
  }

  @Test
  void downForTheOutage_thenUpFromItsEnd() {
    CapacityResource r = new CapacityResource(ResourceSpec.UNLIMITED, 2000 * MS);
    assertEquals(Outcome.DOWN, r.call(2000 * MS - 1));
    assertEquals(Outcome.OK, r.call(2000 * MS));
  }

  @Test
  void aWindowServesCapacityOverTen_andFailsTheRest() {
    CapacityResource r = new CapacityResource(spec(1000, 0, false), 1000 * MS);
    int ok = 0;
    for (int i = 0; i < 150; i++) {
      ok += r.call(1000 * MS + i * 100_000L) == Outcome.OK ? 1 : 0; // 150 calls in [1000, 1015) ms
    }
    assertEquals(100, ok);
    assertEquals(Outcome.OK, r.call(1100 * MS)); // the next window starts afresh
    assertTrue(r.crashes().isEmpty());
  }

  @Test
  void aWindowOfferedMoreThanFactorTimesItsCapacity_knocksItOverForCrashFor() {
    CapacityResource r = new CapacityResource(spec(1000, 3, false), 1000 * MS);
    for (int i = 0; i < 300; i++) {
      r.call(1000 * MS); // 100 served, 200 overloaded: 300 offered is not more than 3 x 100
    }
    assertTrue(r.crashes().isEmpty());
    assertEquals(Outcome.OVERLOADED, r.call(1001 * MS)); // the 301st knocks it over
    assertEquals(List.of(1001 * MS), r.crashes());
    assertEquals(Outcome.DOWN, r.call(1500 * MS));
    assertEquals(Outcome.DOWN, r.call(2001 * MS - 1));
    assertEquals(Outcome.OK, r.call(2001 * MS));
  }

  @Test
  void crashFactorZero_neverCrashes() {
    CapacityResource r = new CapacityResource(spec(10, 0, false), 0);
    for (int i = 0; i < 10_000; i++) {
      r.call(5);
    }
    assertTrue(r.crashes().isEmpty());
  }

  @Test
  void aColdResource_startsAtAQuarter_andReachesFullCapacityTenSecondsAfterItCameBack() {
    ResourceSpec cold = spec(1000, 0, true);
    assertEquals(25.0, cold.windowCapacity(20, 2000 * MS), 1e-9);
    assertEquals(62.5, cold.windowCapacity(70, 2000 * MS), 1e-9); // 5 s after: halfway
    assertEquals(100.0, cold.windowCapacity(120, 2000 * MS), 1e-9);
    assertEquals(100.0, cold.windowCapacity(500, 2000 * MS), 1e-9);
  }

  @Test
  void aColdResource_startsColdAgainAfterEveryCrash() {
    CapacityResource r = new CapacityResource(spec(1000, 3, true), 0);
    long t = 20_000 * MS; // long warm: full capacity
    for (int i = 0; i < 401; i++) {
      r.call(t);
    }
    assertEquals(1, r.crashes().size());
    long back = t + 1000 * MS;
    int ok = 0;
    for (int i = 0; i < 50; i++) {
      ok += r.call(back) == Outcome.OK ? 1 : 0;
    }
    assertEquals(25, ok);
  }

  @Test
  void physicalLimit_isNOverC_steady_andLongerCold() {
    assertEquals(10_000 * MS, spec(1000, 3, false).physicalLimitNanos(10_000, 2000 * MS));
    assertEquals(5_000 * MS, spec(2000, 3, false).physicalLimitNanos(10_000, 2000 * MS));
    // the reference model's figure for 10,000 cells at 1,000/s from cold: 13.9 s
    assertEquals(13_900 * MS, spec(1000, 3, true).physicalLimitNanos(10_000, 2000 * MS));
    assertEquals(0, ResourceSpec.UNLIMITED.physicalLimitNanos(10_000, 2000 * MS));
  }
}
