package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The node's side of a cluster-wide adaptive budget: leases, the steady fuse, the fallback. */
final class LeaseHolderTest {

  private static final long MS = 1_000_000L;
  private static final long TICK = MS;
  private static final Duration ROUND = Duration.ofMillis(100);
  private static final Duration VALID = Duration.ofMillis(500);
  private static final long NG = AdaptiveRateController.NOT_GRANTED;

  private static LeaseHolder holder(Parameters p, int members) {
    return new LeaseHolder(p, members, TICK, new AdaptiveRateController.Listener() {});
  }

  /** A holder of the defaults, two members, telling {@code listener}. */
  private static LeaseHolder holder(AdaptiveRateController.Listener listener) {
    return new LeaseHolder(Parameters.defaults(), 2, TICK, listener);
  }

  private static Lease lease(State state, int permits, boolean probe, long acknowledged) {
    return new Lease(state, permits, probe, ROUND, VALID, acknowledged, 100, 2, 0);
  }

  @Test
  void share_dividesTheRatesAndStretchesTheProbesByTheMembers() {
    Parameters p = LeaseHolder.share(Parameters.defaults().withMaxRate(1000), 4);
    assertEquals(250.0, p.maxRate());
    assertEquals(25.0, p.initialRate());
    assertEquals(1.25, p.minRate());
    assertEquals(Duration.ofMillis(400), p.firstProbe());
    assertEquals(10, p.holdAfter());
    assertEquals(Parameters.defaults(), LeaseHolder.share(Parameters.defaults(), 1));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeaseHolder.share(Parameters.defaults(), 0));
    assertEquals("members must be >= 1 but was 0", e.getMessage());
  }

  @Test
  void beforeAnyLease_itRunsItsFallbackWithItsShareOfTheCeiling() {
    LeaseHolder h = holder(Parameters.defaults().withMaxRate(100), 4);
    assertNull(h.lease());
    assertEquals(25.0, h.rate());
    assertSame(State.STEADY, h.state());
  }

  @Test
  void aRampingLease_grantsItsPermitsPacedOverTheRound_andNoMore() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.RAMPING, 4, false, -1), 0);
    assertEquals(40.0, h.rate());
    int granted = 0;
    long firstGap = -1;
    long last = -1;
    for (long t = 0; t < 300 * MS; t += TICK) {
      h.onTick(t, 10);
      while (h.tryGrant(t)) {
        granted++;
        if (last >= 0 && firstGap < 0) {
          firstGap = t - last;
        }
        last = t;
      }
    }
    assertEquals(4, granted, "the lease's permits, not one more before the next lease");
    // a quarter of the round apart, less the tick the pacer may run ahead (burst 1 + rate x tick)
    assertEquals(24 * MS, firstGap);
  }

  @Test
  void aHoldingLease_grantsTheProbeAlone_publishesIt_andReportsItsStart() {
    List<Integer> probes = new java.util.ArrayList<>();
    LeaseHolder h =
        holder(
            new AdaptiveRateController.Listener() {
              @Override
              public void probe(int n, long nowNanos) {
                probes.add(n);
              }
            });
    h.onLease(lease(State.HOLDING, 0, false, -1), 0);
    assertFalse(h.tryGrant(0));
    h.onLease(lease(State.HOLDING, 1, true, -1), 10 * MS);
    assertTrue(h.tryGrant(10 * MS));
    assertFalse(h.tryGrant(11 * MS));
    assertEquals(List.of(1), probes);
    h.onStarted(15 * MS, 10 * MS);
    NodeReport r = h.report(20 * MS, 7);
    assertEquals(1, r.started());
    assertTrue(r.probeStarted());
    assertEquals(7, r.uncovered());
    assertSame(State.HOLDING, r.state());
  }

  @Test
  void aSteadyLease_holdsAfterHoldAfterFailures_untilALeaseFromALearnerThatHeardOfThem() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    assertTrue(h.tryGrant(0));
    h.report(0, 0); // report 0
    for (int i = 0; i < 9; i++) {
      h.onFailure(MS, NG);
    }
    assertTrue(h.tryGrant(MS), "nine failures: still steady");
    h.onFailure(2 * MS, NG); // the tenth within a second, carried by report 1
    assertFalse(h.tryGrant(2 * MS));
    assertFalse(h.isIdle(2 * MS));
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, 0), 3 * MS);
    assertFalse(h.tryGrant(3 * MS), "decided before the learner heard of the failures");
    assertEquals(1, h.report(4 * MS, 0).sequence());
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, 1), 5 * MS);
    assertTrue(h.tryGrant(5 * MS), "the learner heard of them and stays steady");
  }

  @Test
  void aLeaseThatIsNotSteady_rearmsTheFuse() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    for (int i = 0; i < 10; i++) {
      h.onFailure(MS, NG);
    }
    assertFalse(h.tryGrant(MS));
    h.onLease(lease(State.RAMPING, 2, false, -1), 2 * MS);
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 3 * MS);
    assertTrue(h.tryGrant(3 * MS));
  }

  @Test
  void anExpiredLease_fallsBackToItsOwnController_rampingAtTheLastLeasesRate() {
    LeaseHolder h = holder(Parameters.defaults(), 4);
    h.onLease(lease(State.RAMPING, 5, false, -1), 0);
    h.onTick(499 * MS, 10);
    assertEquals(50.0, h.rate(), "still on the lease");
    h.onTick(500 * MS, 10);
    assertNull(h.lease());
    assertSame(State.RAMPING, h.state());
    assertEquals(50.0, h.rate(), "seeded by the last lease: 5 permits per 100 ms");
    h.onLease(lease(State.RAMPING, 1, false, -1), 600 * MS);
    assertEquals(10.0, h.rate(), "the next lease ends the fallback");
  }

  @Test
  void anExpiredLeaseWithoutPermits_seedsTheFallbackWithItsShareOfTheLearnersRate() {
    LeaseHolder h = holder(Parameters.defaults(), 4);
    h.onLease(lease(State.RAMPING, 0, false, -1), 0); // learner at 100/s, 4 members
    h.onTick(500 * MS, 0);
    assertEquals(25.0, h.rate());
  }

  @Test
  void anExpiredHoldingLease_holdsOnItsOwn_probingNTimesLessOften() {
    LeaseHolder h = holder(Parameters.defaults(), 4);
    h.onLease(lease(State.HOLDING, 0, false, -1), 0);
    h.onTick(500 * MS, 5);
    assertSame(State.HOLDING, h.state());
    for (long t = 500 * MS; t < 900 * MS; t += 100 * MS) {
      h.onTick(t, 5);
      assertFalse(h.tryGrant(t), "no probe before 4 x 100 ms at " + t / MS);
    }
    h.onTick(900 * MS, 5);
    assertTrue(h.tryGrant(900 * MS));
  }

  @Test
  void aFailureNamesTheReportThatCarriedItsStart() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.RAMPING, 3, false, -1), 0);
    assertTrue(h.tryGrant(0));
    h.onStarted(MS, 0);
    NodeReport first = h.report(2 * MS, 0);
    assertEquals(1, first.started());
    h.onFailure(50 * MS, MS);
    h.onFailure(50 * MS, NG);
    NodeReport second = h.report(60 * MS, 0);
    assertEquals(List.of(0L), second.failedStartedIn());
    assertEquals(1, second.failedNotGranted());
    assertEquals(0, second.started());
    assertEquals(1, second.sequence());
  }

  @Test
  void theReportAsksOnlyForTheWaitingActorsItsLeaseDoesNotCover() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.RAMPING, 3, false, -1), 0);
    assertTrue(h.tryGrant(0));
    NodeReport r = h.report(0, 10);
    assertEquals(10, r.waiting());
    assertEquals(8, r.uncovered(), "two permits left");
  }

  @Test
  void constructor_rejectsNoMembersAndNoTick() {
    IllegalArgumentException members =
        assertThrows(IllegalArgumentException.class, () -> holder(Parameters.defaults(), 0));
    assertEquals("members must be >= 1 but was 0", members.getMessage());
    IllegalArgumentException tick =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new LeaseHolder(
                    Parameters.defaults(), 1, 0, new AdaptiveRateController.Listener() {}));
    assertEquals("tickNanos must be > 0 but was 0", tick.getMessage());
    IllegalArgumentException set =
        assertThrows(
            IllegalArgumentException.class,
            () -> holder(Parameters.defaults(), 1).setMembers(0, 0));
    assertEquals("members must be >= 1 but was 0", set.getMessage());
  }

  @Test
  void theFuseCountsOnlyTheLastSecondsFailures() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    for (int i = 0; i < 9; i++) {
      h.onFailure(0, NG);
    }
    h.onFailure(1000 * MS, NG); // the nine have left the window
    assertTrue(h.tryGrant(1000 * MS));
    for (int i = 0; i < 8; i++) {
      h.onFailure(1500 * MS, NG);
    }
    assertTrue(h.tryGrant(1500 * MS), "nine within the second");
    h.onFailure(1900 * MS, NG);
    assertFalse(h.tryGrant(1900 * MS), "ten within the second");
  }

  @Test
  void onItsFallback_itsOwnControllerHoldsOnTheFailuresItSees() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    assertTrue(h.tryGrant(0));
    h.onStarted(0, 0);
    for (int i = 0; i < 10; i++) {
      h.onFailure(MS, 0);
    }
    assertSame(State.HOLDING, h.state());
    assertEquals(0.0, h.rate());
    assertFalse(h.tryGrant(MS));
    assertFalse(h.isIdle(MS));
  }

  @Test
  void setMembers_changesTheFallbacksShare_andKeepsItsState() {
    LeaseHolder h = holder(Parameters.defaults().withMaxRate(100), 2);
    assertEquals(50.0, h.rate());
    h.setMembers(4, 0);
    assertEquals(25.0, h.rate());
    assertEquals(4, h.members());
    h.onLease(lease(State.RAMPING, 3, false, -1), 0);
    h.setMembers(1, 0);
    assertEquals(30.0, h.rate(), "a lease is the learner's, whatever the members");
  }

  @Test
  void idle_onlyOnASteadyUnlimitedLeaseWithItsFuseArmed_orAnIdleFallback() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    assertTrue(h.isIdle(0), "a fresh fallback");
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    assertTrue(h.isIdle(0));
    h.onLease(lease(State.RAMPING, 3, false, -1), 0);
    assertFalse(h.isIdle(0));
    h.onLease(lease(State.HOLDING, 0, false, -1), 0);
    assertFalse(h.isIdle(0));
  }

  @Test
  void aLeaseSetsStateAndRate_andTellsTheListenerWhenTheStateMoves() {
    List<String> changes = new java.util.ArrayList<>();
    LeaseHolder h =
        holder(
            new AdaptiveRateController.Listener() {
              @Override
              public void stateChanged(
                  State from, State to, AdaptiveRateController.Reason reason, long nowNanos) {
                changes.add(from + "->" + to + " " + reason);
              }
            });
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    assertEquals(Double.POSITIVE_INFINITY, h.rate());
    h.onLease(lease(State.HOLDING, 0, false, -1), MS);
    assertEquals(0.0, h.rate());
    NodeReport r = h.report(MS, 3);
    assertSame(State.HOLDING, r.state());
    assertEquals(0.0, r.rate());
    h.onLease(lease(State.RAMPING, 2, false, -1), 2 * MS);
    assertEquals(List.of("STEADY->HOLDING LEASE", "HOLDING->RAMPING LEASE"), changes);
  }

  @Test
  void aStartOlderThanItsMemory_isForgotten_andItsFailureCountsAsNotGranted() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.RAMPING, 3, false, -1), 0);
    assertTrue(h.tryGrant(0));
    h.onStarted(0, 0);
    h.report(0, 0);
    // memory: probation + 2 slices + the lease's validity = 800 ms
    h.report(801 * MS, 0);
    h.onFailure(802 * MS, 0);
    NodeReport r = h.report(803 * MS, 0);
    assertEquals(List.of(), r.failedStartedIn());
    assertEquals(1, r.failedNotGranted());
    assertEquals(0, h.report(804 * MS, 0).failedNotGranted(), "the counts start again");
  }

  @Test
  void theFuseForgetsEachSliceAsItsSecondEnds() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.STEADY, Lease.UNLIMITED, false, -1), 0);
    for (int i = 0; i < 8; i++) {
      h.onFailure(0, NG); // slice 0
    }
    h.onFailure(500 * MS, NG); // slice 5: nine within the second
    h.onFailure(1000 * MS, NG); // slice 10 takes slice 0's place: two within the second
    assertTrue(h.tryGrant(1000 * MS));
  }

  @Test
  void onAClock_aTicksWholePermitsGoAtOnce_andNoMore() {
    LeaseHolder h =
        new LeaseHolder(
            Parameters.defaults(), 2, TICK, true, new AdaptiveRateController.Listener() {});
    h.onLease(lease(State.RAMPING, 100, false, -1), 0); // 1,000 per second: one per 1 ms tick
    assertTrue(h.tryGrant(0));
    assertFalse(h.tryGrant(0), "one tick's permits: one");
    assertFalse(h.tryGrant(MS / 2));
    assertTrue(h.tryGrant(5 * MS)); // late: it does not keep its schedule
    assertFalse(h.tryGrant(5 * MS + MS / 2));
  }

  @Test
  void setMembers_whileOnTheFallbackRamping_keepsRampingAtItsShareOfTheRate() {
    LeaseHolder h = holder(Parameters.defaults(), 2);
    h.onLease(lease(State.RAMPING, 4, false, -1), 0);
    h.onTick(500 * MS, 10); // expired: ramping at 40 per second
    assertEquals(40.0, h.rate());
    h.setMembers(4, 500 * MS);
    assertSame(State.RAMPING, h.state());
    assertEquals(20.0, h.rate(), "twice the members, half the rate");
  }

  /**
   * Whatever the lease's permits and however late the ticks come, a node grants at most its
   * permits in a round, and never two beyond the pacer's burst closer than the lease's spacing
   * less one tick.
   */
  @Property(tries = 200)
  void aLeaseNeverGrantsMoreThanItsPermits(
      @ForAll @IntRange(min = 0, max = 200) int permits,
      @ForAll @IntRange(min = 1, max = 30) int lateness) {
    LeaseHolder h = holder(Parameters.defaults(), 3);
    h.onLease(lease(State.RAMPING, permits, false, -1), 0);
    int granted = 0;
    for (long t = 0; t < 500 * MS; t += lateness * TICK) {
      h.onTick(t, 1000);
      while (h.tryGrant(t)) {
        granted++;
      }
    }
    assertTrue(granted <= permits, granted + " > " + permits);
  }
}
