package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Gates;
import dev.supervision.backoff.testsupport.Gates.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The gate survives its own failures, releases its name, never loses a permit, and is exact under ManualTime. */
final class BudgetGateRobustnessTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final AtomicInteger names = new AtomicInteger();

  static String fresh(String prefix) {
    return prefix + "-" + names.incrementAndGet();
  }

  /** A requester that forwards its grants to a probe (it lives, unlike a probe, as an ActorRef<Object>). */
  static ActorRef<Object> requester(String who, TestProbe<String> probe) {
    return Gates.forwarding(kit.testKit(), probe);
  }

  static GateProtocol.Acquire acquire(ActorRef<Object> requester, String who) {
    return new GateProtocol.Acquire(requester, new Grant(who));
  }

  @Test
  void aPermitThatReachedAStoppedActorGoesToTheNextWaiter() {
    RestartBudget budget =
        RestartBudget.of(fresh("refund"), 1, Duration.ofSeconds(100)).withBurst(1);
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(kit.system()).gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<Object> a = requester("a", probe);
    ActorRef<Object> b = requester("b", probe);
    gate.tell(acquire(a, "a"));
    probe.expectMessage("a"); // the one permit
    gate.tell(acquire(b, "b"));
    probe.expectNoMessage(Duration.ofMillis(200)); // b waits 100 s
    gate.tell(new GateProtocol.Cancel(a)); // a had stopped before its permit arrived
    probe.expectMessage("b");
  }

  @Test
  void aPermitReturnedWithNoOneWaitingGoesBackIntoTheBucket() {
    RestartBudget budget =
        RestartBudget.of(fresh("refund-bucket"), 1, Duration.ofSeconds(100)).withBurst(1);
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(kit.system()).gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<Object> a = requester("a", probe);
    gate.tell(acquire(a, "a"));
    probe.expectMessage("a");
    gate.tell(new GateProtocol.Cancel(a));
    gate.tell(acquire(requester("c", probe), "c"));
    probe.expectMessage("c");
  }

  @Test
  void aGateThatDiesHandsItsWaitersToANewGate_andIsNoLongerHandedOut() {
    RestartBudget budget = RestartBudget.of(fresh("dies"), 1, Duration.ofSeconds(1)).withBurst(1);
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    gate.tell(acquire(requester("a", probe), "a"));
    probe.expectMessage("a");
    gate.tell(acquire(requester("b", probe), "b"));
    gate.tell(acquire(requester("c", probe), "c"));
    probe.expectNoMessage(Duration.ofMillis(200));
    Adapter.toClassic(gate)
        .tell(PoisonPill.getInstance(), org.apache.pekko.actor.ActorRef.noSender());
    probe.expectTerminated(gate);
    probe.awaitAssert(
        () -> {
          assertNotEquals(gate, budgets.gate(budget));
          return null;
        });
    // the new gate starts with a full bucket: b first, then c one second later; no waiter is lost
    probe.expectMessage("b");
    gate.tell(acquire(requester("d", probe), "d")); // sent to the dead gate: re-routed, not lost
    probe.expectNoMessage(Duration.ofMillis(200));
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectMessage("c");
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectMessage("d");
  }

  @Test
  void aGateThatFailsHandsItsWaitersToANewGate() {
    RestartBudget budget =
        RestartBudget.of(fresh("fails"), 1, Duration.ofSeconds(100)).withBurst(1);
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    gate.tell(acquire(requester("a", probe), "a"));
    probe.expectMessage("a");
    gate.tell(acquire(requester("b", probe), "b"));
    probe.expectNoMessage(Duration.ofMillis(200)); // b would wait 100 s
    gate.tell(
        new GateProtocol.Waiting(null)); // a bug in the gate: it fails with a NullPointerException
    probe.expectTerminated(gate);
    probe.expectMessage("b"); // the new gate starts full
  }

  @Test
  void aReleasedNameStopsItsIdleGate_andANewGateServesItLater() {
    String name = fresh("tenant");
    RestartBudget budget = RestartBudget.of(name, 1, Duration.ofSeconds(1)).withBurst(1);
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    budgets.release(name);
    probe.expectTerminated(gate);
    probe.awaitAssert(
        () -> {
          assertFalse(budgets.names().contains(name));
          return null;
        });
    ActorRef<GateProtocol.Command> next = budgets.gate(budget);
    assertNotEquals(gate, next);
    next.tell(acquire(requester("a", probe), "a"));
    probe.expectMessage("a");
  }

  @Test
  void aReleasedGateServesItsWaitersFirst() {
    String name = fresh("tenant-busy");
    RestartBudget budget = RestartBudget.of(name, 1, Duration.ofSeconds(1)).withBurst(1);
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
    TestProbe<String> probe = kit.createTestProbe();
    gate.tell(acquire(requester("a", probe), "a"));
    gate.tell(acquire(requester("b", probe), "b"));
    probe.expectMessage("a");
    budgets.release(name);
    probe.expectNoMessage(Duration.ofMillis(200));
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectMessage("b");
    kit.time().timePasses(Duration.ofSeconds(3)); // the grant leaves the refund window (two slices)
    probe.expectTerminated(gate);
  }

  @Test
  void perTenantBudgetsReleasedAfterUseLeaveNoGateBehind() {
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    TestProbe<String> probe = kit.createTestProbe();
    List<ActorRef<GateProtocol.Command>> gates = new ArrayList<>();
    List<String> tenants = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      String name = fresh("per-tenant");
      tenants.add(name);
      gates.add(budgets.gate(RestartBudget.of(name, 10, Duration.ofSeconds(1))));
      budgets.release(name);
    }
    gates.forEach(probe::expectTerminated);
    probe.awaitAssert(
        () -> {
          tenants.forEach(t -> assertFalse(budgets.names().contains(t), t));
          return null;
        });
  }

  /** Grants per ManualTime step to a queue that never runs dry. */
  private static List<Integer> grantsPerStep(RestartBudget budget, Duration step, int steps) {
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(kit.system()).gate(budget);
    AtomicInteger granted = new AtomicInteger();
    ActorRef<Object> requester =
        kit.spawn(
            Behaviors.receive(Object.class)
                .onSignal(
                    Grant.class,
                    g -> {
                      granted.incrementAndGet();
                      return Behaviors.same();
                    })
                .onMessage(
                    Ping.class,
                    ping -> {
                      ping.replyTo().tell("pong");
                      return Behaviors.same();
                    })
                .build());
    for (int i = 0; i < 2000; i++) {
      gate.tell(acquire(requester, "r" + i));
    }
    List<Integer> perStep = new ArrayList<>();
    int before = handled(gate, requester, granted);
    perStep.add(before);
    for (int s = 0; s < steps; s++) {
      kit.time().timePasses(step);
      int total = handled(gate, requester, granted);
      perStep.add(total - before);
      before = total;
    }
    return perStep;
  }

  /** Asks the requester to answer once it has handled everything sent to it before. */
  record Ping(ActorRef<String> replyTo) {}

  /**
   * The grants handled once the gate has handled every message sent to it so far (the ticks that
   * ManualTime's step enqueued) and the requester every grant the gate sent: a round trip to each,
   * in that order, so no wall-clock wait decides what a step granted.
   */
  private static int handled(
      ActorRef<GateProtocol.Command> gate, ActorRef<Object> requester, AtomicInteger granted) {
    TestProbe<Integer> waiting = kit.createTestProbe();
    gate.tell(new GateProtocol.Waiting(waiting.ref()));
    waiting.receiveMessage(Duration.ofSeconds(30));
    TestProbe<String> pong = kit.createTestProbe();
    requester.tell(new Ping(pong.ref()));
    pong.expectMessage(Duration.ofSeconds(30), "pong");
    return granted.get();
  }
}
