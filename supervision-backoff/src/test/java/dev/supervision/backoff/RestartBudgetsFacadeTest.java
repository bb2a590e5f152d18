package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The {@link RestartBudgets} facade: null checks naming the parameter, answers for names no actor
 * uses, and the status and waiting count of a budget in use.
 */
final class RestartBudgetsFacadeTest {

  private static final ActorTestKit kit = ActorTestKit.create();
  private static final AtomicInteger names = new AtomicInteger();

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  /** Distinct grant signals, so that the gate keeps every request. */
  record Grant(int n) implements Signal {}

  private static String fresh() {
    return "facade-" + names.incrementAndGet();
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void everyMethodRejectsNull_namingTheParameter() {
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    assertEquals(
        "budget must not be null",
        assertThrows(NullPointerException.class, () -> budgets.gate(null)).getMessage());
    assertEquals(
        "budgetName must not be null",
        assertThrows(NullPointerException.class, () -> budgets.waiting(null)).getMessage());
    assertEquals(
        "budgetName must not be null",
        assertThrows(NullPointerException.class, () -> budgets.status(null)).getMessage());
    assertEquals(
        "budgetName must not be null",
        assertThrows(NullPointerException.class, () -> budgets.release(null)).getMessage());
  }

  @Test
  void aNameNoActorUsesHasNoWaitersNoStatus_andReleasingItDoesNothing() throws Exception {
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    String name = fresh();
    assertEquals(0, await(budgets.waiting(name)));
    assertEquals(Optional.empty(), await(budgets.status(name)));
    budgets.release(name);
    assertFalse(budgets.names().contains(name));
  }

  @Test
  void theStatusOfAFixedBudgetShowsItsRateAndItsWaiters() throws Exception {
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    String name = fresh();
    RestartBudget budget = RestartBudget.of(name, 2, Duration.ofSeconds(100)).withBurst(1);
    ActorRef<GateProtocol.Command> gate = budgets.gate(budget);
    assertSame(gate, budgets.gate(budget)); // one gate per name
    assertTrue(budgets.names().contains(name));
    TestProbe<String> granted = kit.createTestProbe();
    ActorRef<Object> requester =
        kit.spawn(
            Behaviors.receive(Object.class)
                .onSignal(
                    Grant.class,
                    g -> {
                      granted.ref().tell("granted");
                      return Behaviors.same();
                    })
                .build());
    for (int i = 0; i < 4; i++) {
      gate.tell(new GateProtocol.Acquire(requester, new Grant(i)));
    }
    granted.expectMessage("granted");
    granted.expectNoMessage(Duration.ofMillis(200));
    assertEquals(3, await(budgets.waiting(name)));
    // 2 per 100 s: 2 slices of 50 s, one token each: 0.02 per second
    assertEquals(
        Optional.of(
            new GateProtocol.Status(name, State.STEADY, 0.02, Double.NaN, 3, Optional.empty())),
        await(budgets.status(name)));
  }
}
