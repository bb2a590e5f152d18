package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Coordination;
import dev.supervision.backoff.spi.GateProtocol.Failed;
import dev.supervision.backoff.testsupport.Gates.Grant;
import dev.supervision.backoff.testsupport.StartingRequester;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The gate of a cluster-wide adaptive budget on one node, under ManualTime: before any lease it runs
 * its own fallback; with a lease it grants the lease's permits paced over the round and no more,
 * reports its starts and failures to the learner, takes the probe and publishes where it stands;
 * when the lease expires it falls back on its own controller.
 */
final class ALeasedGateGrantsWithinItsLeaseTest {

  private static final ActorTestKit kit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(kit.system());
  private static final Duration ROUND = Duration.ofMillis(100);
  private static final Duration QUIET = Duration.ofMillis(200);
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  private static Lease lease(State state, int permits, boolean probe) {
    return new Lease(state, permits, probe, ROUND, ROUND.multipliedBy(5), -1, 100, 2, 40);
  }

  private static NodeReport report(ActorRef<GateProtocol.Command> gate) {
    TestProbe<NodeReport> reports = kit.createTestProbe();
    gate.tell(new GateProtocol.CollectReport(reports.ref()));
    return reports.receiveMessage();
  }

  @Test
  void aRampingLease_grantsItsPermits_reportsTheirStarts_andNoMoreUntilTheNextLease() {
    String name = "leased-" + names.incrementAndGet();
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).clusterWide(), 2));
    assertEquals(
        new Coordination(false, 0.5, false, 2, 0), status(kit, gate).coordination().orElseThrow());
    gate.tell(new GateProtocol.SetShare(4)); // the membership sets the fallback's share
    assertEquals(
        new Coordination(false, 0.25, false, 4, 0), status(kit, gate).coordination().orElseThrow());
    gate.tell(new GateProtocol.GrantLease(lease(State.RAMPING, 3, false)));
    TestProbe<String> granted = kit.createTestProbe();
    for (int i = 0; i < 5; i++) {
      ActorRef<Object> a =
          kit.spawn(StartingRequester.create(gate, Grant.class, g -> granted.ref().tell(g.who())));
      gate.tell(new Acquire(a, new Grant("a" + i)));
    }
    assertEquals(List.of("a0"), granted.receiveSeveralMessages(1));
    time.timePasses(ROUND); // 30 per second: three permits 33 ms apart within the round
    // the gate grants in the order asked; two requesters' forwards may cross on their way here
    assertEquals(Set.of("a1", "a2"), new HashSet<>(granted.receiveSeveralMessages(2)));
    time.timePasses(ROUND);
    granted.expectNoMessage(QUIET); // the lease is used up
    NodeReport r = report(gate);
    assertEquals(3, r.started());
    assertEquals(2, r.waiting());
    assertEquals(2, r.uncovered());
    assertSame(State.RAMPING, r.state());
    assertEquals(30.0, r.rate(), 1e-9);
    Coordination c = status(kit, gate).coordination().orElseThrow();
    assertTrue(c.coordinated());
    assertEquals(0.3, c.share(), 1e-9); // 3 of the learner's 10 permits a round
    assertEquals(40, c.clusterWaiting());
    gate.tell(new GateProtocol.GrantLease(lease(State.RAMPING, 1, false)));
    assertEquals(List.of("a3"), granted.receiveSeveralMessages(1));
  }

  @Test
  void aHoldingLease_letsOnlyItsProbeThrough_andTheGatePublishesThatItProbes() {
    String name = "leased-" + names.incrementAndGet();
    TestProbe<BudgetEvent> events = kit.createTestProbe();
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, events.ref()));
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).clusterWide(), 2));
    gate.tell(new GateProtocol.GrantLease(lease(State.HOLDING, 0, false)));
    TestProbe<String> granted = kit.createTestProbe();
    ActorRef<Object> a =
        kit.spawn(StartingRequester.create(gate, Grant.class, g -> granted.ref().tell(g.who())));
    gate.tell(new Acquire(a, new Grant("a")));
    ActorRef<Object> b =
        kit.spawn(StartingRequester.create(gate, Grant.class, g -> granted.ref().tell(g.who())));
    gate.tell(new Acquire(b, new Grant("b")));
    granted.expectNoMessage(QUIET);
    gate.tell(new GateProtocol.GrantLease(lease(State.HOLDING, 1, true)));
    assertEquals("a", granted.receiveMessage());
    granted.expectNoMessage(QUIET);
    boolean sawProbe = false;
    boolean sawProber = false;
    while (!(sawProbe && sawProber)) { // other budgets' events may come between
      BudgetEvent e = events.receiveMessage();
      if (e.budget().equals(name)) {
        sawProbe |= e instanceof BudgetEvent.Probe;
        sawProber |= e instanceof BudgetEvent.CoordinationChanged cc && cc.prober();
      }
    }
    assertTrue(sawProbe, "the node publishes the probe it grants");
    assertTrue(sawProber, "and that it probes for the cluster");
    gate.tell(new Failed(a));
    NodeReport r = report(gate);
    assertTrue(r.probeStarted());
    assertEquals(List.of(r.sequence()), r.failedStartedIn());
  }

  @Test
  void anExpiredLease_putsTheGateOnItsOwnFallback() {
    String name = "leased-" + names.incrementAndGet();
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).clusterWide(), 2));
    gate.tell(new GateProtocol.GrantLease(lease(State.RAMPING, 4, false)));
    assertTrue(status(kit, gate).coordination().orElseThrow().coordinated());
    TestProbe<String> granted = kit.createTestProbe();
    ActorRef<Object> a =
        kit.spawn(StartingRequester.create(gate, Grant.class, g -> granted.ref().tell(g.who())));
    gate.tell(new Acquire(a, new Grant("a"))); // the gate ticks while the lease ramps
    granted.receiveMessage();
    time.timePasses(ROUND.multipliedBy(6));
    GateProtocol.Status s = status(kit, gate);
    assertFalse(s.coordination().orElseThrow().coordinated());
    assertSame(State.RAMPING, s.state());
    assertEquals(40.0, s.rate(), 1e-9); // seeded by the last lease: 4 permits a round
  }

  @Test
  void anIdleGatesLeaseExpiresToo_byItsOwnTimer() {
    String name = "leased-" + names.incrementAndGet();
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).clusterWide(), 2));
    gate.tell(new GateProtocol.GrantLease(lease(State.STEADY, Lease.UNLIMITED, false)));
    assertTrue(status(kit, gate).coordination().orElseThrow().coordinated());
    time.timePasses(ROUND.multipliedBy(4)); // nothing waits: the gate does not tick
    assertTrue(status(kit, gate).coordination().orElseThrow().coordinated());
    time.timePasses(ROUND.multipliedBy(2)); // past the lease's five rounds
    GateProtocol.Status s = status(kit, gate);
    assertFalse(s.coordination().orElseThrow().coordinated());
    assertSame(State.STEADY, s.state());
  }
}
