package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.forwarding;
import static dev.supervision.backoff.testsupport.Gates.status;
import static dev.supervision.backoff.testsupport.Gates.waiting;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Cancel;
import dev.supervision.backoff.spi.GateProtocol.Status;
import dev.supervision.backoff.testsupport.Gates.Grant;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A fixed budget's gate under ManualTime: exact grants per slice, in arrival order; a permit comes
 * back only from an actor that stopped within two slices of its grant; the refill keeps its phase;
 * a retiring gate stops exactly when nothing can come back.
 */
final class BudgetGateGrantsExactlyTest {

  private static final ActorTestKit kit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(kit.system());
  private static final Duration QUIET = Duration.ofMillis(200);
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  /** One requester per test that forwards the name in each grant it gets. */
  private static final class Requesters {
    final TestProbe<String> granted = kit.createTestProbe();
    final ActorRef<Object> ref = forwarding(kit, granted);

    /** A distinct requester (supervised actors are distinct refs). */
    ActorRef<Object> another() {
      return forwarding(kit, granted);
    }
  }

  private static ActorRef<GateProtocol.Command> gate(int permits, Duration period, int burst) {
    RestartBudget budget =
        RestartBudget.of("exact-" + names.incrementAndGet(), permits, period).withBurst(burst);
    return kit.spawn(BudgetGate.create(budget, 1));
  }

  @Test
  void grantsTheBurstAtOnce_thenOnePermitPerSlice_inArrivalOrder() {
    // 10 per second, burst 3: slices of 100 ms, one token each
    ActorRef<GateProtocol.Command> gate = gate(10, Duration.ofSeconds(1), 3);
    Requesters r = new Requesters();
    for (int i = 0; i < 20; i++) {
      gate.tell(new Acquire(r.ref, new Grant("r" + i)));
    }
    assertEquals(List.of("r0", "r1", "r2"), r.granted.receiveSeveralMessages(3));
    r.granted.expectNoMessage(QUIET);
    assertEquals(17, waiting(kit, gate));
    time.timePasses(Duration.ofMillis(100));
    assertEquals("r3", r.granted.receiveMessage());
    r.granted.expectNoMessage(QUIET);
    time.timePasses(Duration.ofMillis(900));
    assertEquals(
        List.of("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12"),
        r.granted.receiveSeveralMessages(9));
    r.granted.expectNoMessage(QUIET);
    Status s = status(kit, gate);
    assertEquals(State.STEADY, s.state());
    assertEquals(10.0, s.rate(), 1e-9);
    assertEquals(Double.NaN, s.goodput());
    assertEquals(7, s.waiting());
  }

  @Test
  void theRefillKeepsItsPhaseWhenActorsArriveBetweenTicks() {
    ActorRef<GateProtocol.Command> gate = gate(10, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    gate.tell(new Acquire(r.ref, new Grant("a")));
    r.granted.expectMessage("a"); // the refill starts now: ticks at 100 ms, 200 ms, ...
    time.timePasses(Duration.ofMillis(60));
    gate.tell(new Acquire(r.another(), new Grant("b")));
    r.granted.expectNoMessage(QUIET);
    assertEquals(1, waiting(kit, gate));
    time.timePasses(Duration.ofMillis(40)); // the tick at 100 ms, not 160 ms
    r.granted.expectMessage("b");
  }

  @Test
  void aStoppedActorsPermitComesBackUpToTwoSlicesAfterItsGrant() {
    // 1 per second: one slice of 1 s; a grant can be given back until two slices have passed
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    time.timePasses(Duration.ofSeconds(2));
    gate.tell(new Acquire(r.another(), new Grant("b"))); // the token refilled meanwhile
    r.granted.expectMessage("b");
    gate.tell(new Acquire(r.another(), new Grant("c")));
    r.granted.expectNoMessage(QUIET);
    gate.tell(new Cancel(a)); // exactly two slices after a's grant: it still comes back
    r.granted.expectMessage("c");
  }

  @Test
  void aPermitUsedLongerThanTwoSlicesAgoDoesNotComeBack() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    time.timePasses(Duration.ofSeconds(3));
    gate.tell(new Acquire(r.another(), new Grant("b")));
    r.granted.expectMessage("b");
    gate.tell(new Acquire(r.another(), new Grant("c")));
    gate.tell(new Cancel(a)); // a ran for 3 s: its restart happened, nothing to give back
    r.granted.expectNoMessage(QUIET);
    assertEquals(1, waiting(kit, gate));
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("c");
  }

  @Test
  void aPermitUsedLongAgoDoesNotComeBack_evenIfTheBucketFilledUpMeanwhile() {
    // 10 per second, burst 2: the bucket is full again after one slice, but the refill keeps
    // running until a's grant is two slices old, then stops
    ActorRef<GateProtocol.Command> gate = gate(10, Duration.ofSeconds(1), 2);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    time.timePasses(Duration.ofSeconds(1));
    for (String who : List.of("b", "c", "d")) {
      gate.tell(new Acquire(r.ref, new Grant(who))); // one requester: grants arrive in order
    }
    assertEquals(List.of("b", "c"), r.granted.receiveSeveralMessages(2));
    gate.tell(new Cancel(a));
    r.granted.expectNoMessage(QUIET);
    time.timePasses(Duration.ofMillis(100));
    r.granted.expectMessage("d");
  }

  @Test
  void aPermitReturnedToAFullBucketIsCappedAtTheBurst() {
    ActorRef<GateProtocol.Command> gate = gate(10, Duration.ofSeconds(1), 2);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    time.timePasses(Duration.ofMillis(100)); // full again: 2 tokens
    gate.tell(new Cancel(a)); // within two slices: comes back, but the bucket holds 2
    for (String who : List.of("b", "c", "d")) {
      gate.tell(new Acquire(r.ref, new Grant(who))); // one requester: grants arrive in order
    }
    assertEquals(List.of("b", "c"), r.granted.receiveSeveralMessages(2));
    r.granted.expectNoMessage(QUIET);
    assertEquals(1, waiting(kit, gate));
  }

  @Test
  void aPermitComesBackOnce_andOnlyFromTheActorItWasGrantedTo() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(100), 1);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    for (String who : List.of("b", "c", "d")) {
      gate.tell(new Acquire(r.another(), new Grant(who)));
    }
    gate.tell(new Cancel(r.another())); // never asked: nothing comes back
    r.granted.expectNoMessage(QUIET);
    gate.tell(new Cancel(a));
    r.granted.expectMessage("b");
    gate.tell(new Cancel(a)); // a second time: nothing
    r.granted.expectNoMessage(QUIET);
    assertEquals(2, waiting(kit, gate));
  }

  @Test
  void anActorStoppedWhileWaitingLeavesTheQueue_andGivesNothingBack() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    gate.tell(new Acquire(r.another(), new Grant("a")));
    r.granted.expectMessage("a");
    ActorRef<Object> c = r.another();
    gate.tell(new Acquire(r.another(), new Grant("b")));
    gate.tell(new Acquire(c, new Grant("c")));
    gate.tell(new Acquire(r.another(), new Grant("d")));
    gate.tell(new Cancel(c));
    r.granted.expectNoMessage(QUIET);
    assertEquals(2, waiting(kit, gate));
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("b");
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("d");
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectNoMessage(QUIET);
    assertEquals(0, waiting(kit, gate));
  }

  @Test
  void anActorThatWaitsAgainAndStopsGivesUpItsPlace_notItsEarlierPermit() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a1")));
    r.granted.expectMessage("a1");
    gate.tell(new Acquire(a, new Grant("a2"))); // failed again at once: waits
    gate.tell(new Acquire(r.another(), new Grant("b")));
    gate.tell(new Cancel(a)); // stopped while waiting
    r.granted.expectNoMessage(QUIET);
    assertEquals(1, waiting(kit, gate));
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("b");
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aFailureReportIsIgnoredByAFixedBudget() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    ActorRef<Object> a = r.another();
    gate.tell(new Acquire(a, new Grant("a")));
    r.granted.expectMessage("a");
    gate.tell(new GateProtocol.Failed(a));
    gate.tell(new Acquire(r.another(), new Grant("b")));
    r.granted.expectNoMessage(QUIET);
    Status status = status(kit, gate);
    assertTrue(status.name().startsWith("exact-"), status.name());
    assertEquals(
        new Status(status.name(), State.STEADY, 1.0, Double.NaN, 1, Optional.empty()), status);
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("b");
  }

  @Test
  void aGateStartsWithItsShareOfTheBudget_atLeastOneMember() {
    RestartBudget budget =
        RestartBudget.of("share-" + names.incrementAndGet(), 20, Duration.ofSeconds(1))
            .withBurst(6);
    assertEquals(20.0, status(kit, kit.spawn(BudgetGate.create(budget, 0))).rate(), 1e-9);
    assertEquals(20.0, status(kit, kit.spawn(BudgetGate.create(budget, 1))).rate(), 1e-9);
    ActorRef<GateProtocol.Command> half = kit.spawn(BudgetGate.create(budget, 2));
    assertEquals(10.0, status(kit, half).rate(), 1e-9);
    // half of the burst: 3 permits at once
    Requesters r = new Requesters();
    for (int i = 0; i < 5; i++) {
      half.tell(new Acquire(r.ref, new Grant("r" + i)));
    }
    assertEquals(List.of("r0", "r1", "r2"), r.granted.receiveSeveralMessages(3));
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aNewShareChangesTheRate_andAZeroShareCountsAsOneMember() {
    ActorRef<GateProtocol.Command> gate = gate(20, Duration.ofSeconds(1), 6);
    gate.tell(new GateProtocol.SetShare(4));
    assertEquals(5.0, status(kit, gate).rate(), 1e-9);
    gate.tell(new GateProtocol.SetShare(0));
    assertEquals(20.0, status(kit, gate).rate(), 1e-9);
  }

  @Test
  void aLargerShareRefillsABucketThatWasFull() {
    // 10 per second, burst 4; a quarter holds 1 token (full); back to one member: capacity 4
    ActorRef<GateProtocol.Command> gate = gate(10, Duration.ofSeconds(1), 4);
    gate.tell(new GateProtocol.SetShare(4));
    gate.tell(new GateProtocol.SetShare(1));
    assertEquals(10.0, status(kit, gate).rate(), 1e-9);
    time.timePasses(Duration.ofMillis(300)); // 1 + 3 tokens
    Requesters r = new Requesters();
    for (int i = 0; i < 5; i++) {
      gate.tell(new Acquire(r.ref, new Grant("r" + i)));
    }
    assertEquals(List.of("r0", "r1", "r2", "r3"), r.granted.receiveSeveralMessages(4));
    r.granted.expectNoMessage(QUIET);
  }

  @Test
  void aRetiringGateServesItsWaiters_andStopsWhenTheLastPermitCanNoLongerComeBack() {
    ActorRef<GateProtocol.Command> gate = gate(1, Duration.ofSeconds(1), 1);
    Requesters r = new Requesters();
    gate.tell(new Acquire(r.another(), new Grant("a")));
    r.granted.expectMessage("a");
    gate.tell(new Acquire(r.another(), new Grant("b")));
    gate.tell(new GateProtocol.Retire());
    assertEquals(1, waiting(kit, gate)); // still there: b waits
    time.timePasses(Duration.ofSeconds(1));
    r.granted.expectMessage("b"); // granted at 1 s
    time.timePasses(Duration.ofSeconds(2)); // b's permit is two slices old: it may still come back
    assertEquals(0, waiting(kit, gate));
    TestProbe<Object> watcher = kit.createTestProbe();
    time.timePasses(Duration.ofSeconds(1));
    watcher.expectTerminated(gate);
  }

  @Test
  void aRetiringGateStopsAtOnceWhenItsLastWaiterLeaves() {
    // 4 per 400 ms among 4 members: a quarter token per 100 ms slice, capacity 1
    ActorRef<GateProtocol.Command> gate = gate(4, Duration.ofMillis(400), 4);
    gate.tell(new GateProtocol.SetShare(4));
    Requesters r = new Requesters();
    gate.tell(new Acquire(r.another(), new Grant("a")));
    r.granted.expectMessage("a");
    ActorRef<Object> b = r.another();
    gate.tell(new Acquire(b, new Grant("b")));
    time.timePasses(Duration.ofMillis(300)); // 0.75 tokens; a's grant is forgotten
    gate.tell(new GateProtocol.Retire());
    assertEquals(1, waiting(kit, gate));
    gate.tell(new Cancel(b));
    TestProbe<Object> watcher = kit.createTestProbe();
    watcher.expectTerminated(gate); // without waiting for the next tick
  }
}
