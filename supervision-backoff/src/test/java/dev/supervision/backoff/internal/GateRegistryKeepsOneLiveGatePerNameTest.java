package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.forwarding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testsupport.Gates.Grant;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The registry hands out one gate per budget name, named after the budget; it forgets a gate when
 * that gate stops, and never forgets the gate that replaced it.
 */
final class GateRegistryKeepsOneLiveGatePerNameTest {

  private static final ActorTestKit kit = ActorTestKit.create();
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  private static ActorRef<Object> requester(String who, TestProbe<String> probe) {
    return forwarding(kit, probe);
  }

  @Test
  void aBudgetIsLookedUpToTheSameHandle() {
    GateRegistry registry = GateRegistry.get(kit.system());
    RestartBudget budget =
        RestartBudget.of("lookup-" + names.incrementAndGet(), 5, Duration.ofSeconds(1));
    GateRegistry.Handle first = registry.handle(budget);
    GateRegistry.Handle second =
        registry.handle(RestartBudget.of(budget.getName(), 5, Duration.ofSeconds(1)));
    assertSame(first, second);
    assertFalse(first.isForgotten());
    assertEquals(Optional.of(first.gate()), registry.current(budget.getName()));
    assertTrue(registry.names().contains(budget.getName()));
    assertEquals(Optional.empty(), registry.current("never-used-" + names.incrementAndGet()));
  }

  @Test
  void aGateIsNamedAfterItsBudget_escaped_withAFreshNumberPerGate() {
    GateRegistry registry = GateRegistry.get(kit.system());
    String name = "orders db/" + names.incrementAndGet();
    ActorRef<GateProtocol.Command> a =
        registry.handle(RestartBudget.of(name, 5, Duration.ofSeconds(1))).gate();
    ActorRef<GateProtocol.Command> b =
        registry.handle(RestartBudget.of(name + "x", 5, Duration.ofSeconds(1))).gate();
    String prefix = "restart-budget-orders+db%2F" + name.substring("orders db/".length()) + "-";
    assertTrue(a.path().name().startsWith(prefix), a.path().name());
    long na = Long.parseLong(a.path().name().substring(prefix.length()));
    long nb = Long.parseLong(b.path().name().substring(prefix.length() + 1));
    assertTrue(nb > na, a.path().name() + " " + b.path().name());
  }

  @Test
  void aStoppedGateIsForgotten_butTheGateThatTookItsWaitersIsNot() {
    GateRegistry registry = GateRegistry.get(kit.system());
    RestartBudget budget =
        RestartBudget.of("replaced-" + names.incrementAndGet(), 1, Duration.ofSeconds(100))
            .withBurst(1);
    GateRegistry.Handle old = registry.handle(budget);
    TestProbe<String> probe = kit.createTestProbe();
    old.gate().tell(new GateProtocol.Acquire(requester("a", probe), new Grant("a")));
    probe.expectMessage("a");
    old.gate().tell(new GateProtocol.Acquire(requester("b", probe), new Grant("b")));
    probe.expectNoMessage(Duration.ofMillis(200)); // b waits 100 s
    Adapter.toClassic(old.gate())
        .tell(PoisonPill.getInstance(), org.apache.pekko.actor.ActorRef.noSender());
    probe.expectTerminated(old.gate());
    probe.expectMessage("b"); // from the new gate, which starts full
    probe.awaitAssert(
        () -> {
          assertTrue(old.isForgotten());
          return null;
        });
    // the keeper has seen both the orphans and the old gate's termination by now
    probe.expectNoMessage(Duration.ofMillis(300));
    ActorRef<GateProtocol.Command> now = registry.current(budget.getName()).orElseThrow();
    assertNotEquals(old.gate(), now);
    GateRegistry.Handle current = registry.handle(budget);
    assertSame(now, current.gate());
    assertFalse(current.isForgotten());
  }

  private static void poison(ActorRef<GateProtocol.Command> gate) {
    Adapter.toClassic(gate)
        .tell(PoisonPill.getInstance(), org.apache.pekko.actor.ActorRef.noSender());
  }

  @Test
  void theKeeperHandsOverTheWaitersOfGateAfterGate() {
    GateRegistry registry = GateRegistry.get(kit.system());
    RestartBudget budget =
        RestartBudget.of("handover-" + names.incrementAndGet(), 1, Duration.ofSeconds(100))
            .withBurst(1);
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<GateProtocol.Command> previous = registry.handle(budget).gate();
    previous.tell(new GateProtocol.Acquire(requester("first", probe), new Grant("first")));
    probe.expectMessage("first");
    for (int round = 0; round < 3; round++) {
      String who = "waiter" + round;
      previous.tell(new GateProtocol.Acquire(requester(who, probe), new Grant(who)));
      probe.expectNoMessage(Duration.ofMillis(100)); // waits 100 s
      poison(previous);
      probe.expectTerminated(previous);
      probe.expectMessage(who); // from the next gate, which starts full
      ActorRef<GateProtocol.Command> before = previous;
      previous =
          probe.awaitAssert(
              () -> {
                ActorRef<GateProtocol.Command> next =
                    registry.current(budget.getName()).orElseThrow();
                assertNotEquals(before, next);
                return next;
              });
    }
  }

  @Test
  void requestsSentToAStoppedGateReachTheGateThatServesTheBudgetNow() {
    GateRegistry registry = GateRegistry.get(kit.system());
    RestartBudget budget =
        RestartBudget.of("late-" + names.incrementAndGet(), 10, Duration.ofSeconds(100))
            .withBurst(3);
    GateRegistry.Handle old = registry.handle(budget);
    TestProbe<String> probe = kit.createTestProbe();
    old.gate().tell(new GateProtocol.Retire()); // idle: stops at once
    probe.expectTerminated(old.gate());
    probe.awaitAssert(
        () -> {
          assertTrue(old.isForgotten());
          return null;
        });
    for (String who : new String[] {"x", "y", "z"}) {
      old.gate().tell(new GateProtocol.Acquire(requester(who, probe), new Grant(who)));
      probe.expectMessage(Duration.ofSeconds(5), who);
    }
  }
}
