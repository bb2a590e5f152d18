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

  @Test
  void aLimiterWithoutBurst_acceptsOneCallPerThousandOverRateWholeMilliseconds_likeNginx() {
    // limit_req rate=200r/s (burst 0): one request per 5 whole ms since the last accepted one
    CapacityResource r = new CapacityResource(ResourceSpec.limiter(200, 0), 1000 * MS);
    assertEquals(Outcome.DOWN, r.call(999 * MS));
    assertEquals(Outcome.OK, r.call(1000 * MS)); // the first request of a fresh limiter
    assertEquals(Outcome.OVERLOADED, r.call(1000 * MS + 999_999)); // the same millisecond
    assertEquals(Outcome.OVERLOADED, r.call(1004 * MS + 999_999)); // 4 whole ms later: too soon
    assertEquals(Outcome.OK, r.call(1005 * MS)); // 5 ms after the last accepted one
    assertEquals(Outcome.OVERLOADED, r.call(1009 * MS));
    assertEquals(Outcome.OK, r.call(1010 * MS + 500_000)); // a rejected call changed nothing
    assertTrue(r.crashes().isEmpty());
  }

  @Test
  void aLimiterWithBurst_acceptsBurstPlusOneAtOnce_thenLeaksAtItsRate() {
    // limit_req rate=1000r/s burst=5 nodelay: 6 at once (the first leaves no excess), then one per
    // ms
    CapacityResource r = new CapacityResource(ResourceSpec.limiter(1000, 5), 0);
    int ok = 0;
    for (int i = 0; i < 20; i++) {
      ok += r.call(10 * MS) == Outcome.OK ? 1 : 0;
    }
    assertEquals(6, ok);
    assertEquals(Outcome.OK, r.call(11 * MS)); // one leaked
    assertEquals(Outcome.OVERLOADED, r.call(11 * MS));
    int later = 0;
    for (int i = 0; i < 20; i++) {
      later += r.call(1_000 * MS) == Outcome.OK ? 1 : 0; // long idle: empty again
    }
    assertEquals(6, later);
  }

  @Test
  void aLimitersMillisecondIsOneOfItsWindowsOwnTime() {
    // real mode at --scale 0.5: windows of 100 ms of real time span 200 ms of model time, and the
    // limiter counts real milliseconds, 2 ms of model time each; its rate stays per model second
    CapacityResource r = new CapacityResource(ResourceSpec.limiter(1000, 0), 0, 200 * MS);
    assertEquals(Outcome.OK, r.call(0));
    assertEquals(Outcome.OVERLOADED, r.call(1999_999));
    assertEquals(Outcome.OK, r.call(2 * MS)); // 1 ms of the limiter's clock leaks 2 requests
    assertEquals(Outcome.OVERLOADED, r.call(2 * MS));
  }

  @Test
  void aLimitersSettingsAreChecked_andItsPhysicalLimitIsNOverRate() {
    assertEquals(10_000_000_000L, ResourceSpec.limiter(200, 5).physicalLimitNanos(2_000, 0));
    assertTrue(ResourceSpec.limiter(200, 5).limited());
    assertTrue(!new ResourceSpec(200, 3, Duration.ofSeconds(1), false).limited());
    org.junit.jupiter.api.Assertions.assertThrows(
        ScenarioException.class, () -> ResourceSpec.limiter(0, 5));
    org.junit.jupiter.api.Assertions.assertThrows(
        ScenarioException.class, () -> ResourceSpec.limiter(100, -1));
    org.junit.jupiter.api.Assertions.assertThrows(
        ScenarioException.class,
        () -> new ResourceSpec(100, 0, Duration.ofSeconds(1), true, 5)); // a cold limiter
  }
}
