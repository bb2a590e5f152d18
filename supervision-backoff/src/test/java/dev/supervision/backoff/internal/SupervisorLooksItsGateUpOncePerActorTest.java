package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A supervised actor with a restart budget finds its gate in the registry when it starts, and its
 * restarts go through that gate; after its gate stopped (here: the budget was released) no gate is
 * started until the actor next needs a permit, and then it gets its permits from a new gate.
 */
final class SupervisorLooksItsGateUpOncePerActorTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  private static Behavior<String> failing() {
    return Behaviors.setup(
        ctx ->
            Behaviors.receiveMessage(
                m -> {
                  throw new IllegalStateException("fail " + m);
                }));
  }

  private static ActorRef<String> spawn(String budgetName, TestProbe<Integer> restarted) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(1), Duration.ofMillis(2))
            .withLoggingEnabled(false)
            .withBudget(RestartBudget.of(budgetName, 1000, Duration.ofSeconds(1)))
            .withListener(
                e -> {
                  if (e instanceof BackoffEvent.Restarted r) {
                    restarted.ref().tell(r.attempt());
                  }
                });
    return testKit.spawn(BackoffSupervisor.wrap(failing(), policy));
  }

  private static void failAndAwaitRestart(
      ActorRef<String> actor, TestProbe<Integer> restarted, int times) {
    for (int i = 0; i < times; i++) {
      actor.tell("now");
      // a 1-2 ms backoff: 5 s is ample, and a restart that never comes fails within PIT's timeout
      restarted.receiveMessage(Duration.ofSeconds(5));
    }
  }

  @Test
  void anActorFindsItsGateWhenItStarts_andItsRestartsGoThroughThatGate() {
    GateRegistry registry = GateRegistry.get(testKit.system());
    TestProbe<Integer> restarted = testKit.createTestProbe();
    ActorRef<String> actor = spawn("found-at-start", restarted);
    // the gate exists before any failure: the actor looked its budget up when it started
    restarted.awaitAssert(
        () -> {
          assertTrue(registry.current("found-at-start").isPresent());
          return null;
        });
    ActorRef<GateProtocol.Command> gate = registry.current("found-at-start").orElseThrow();
    failAndAwaitRestart(actor, restarted, 5);
    assertEquals(Optional.of(gate), registry.current("found-at-start"), "one gate throughout");
    testKit.stop(actor);
  }

  @Test
  void afterItsGateStoppedTheActorFindsANewGateWhenItNextNeedsOne_andStillRestarts() {
    GateRegistry registry = GateRegistry.get(testKit.system());
    TestProbe<Integer> restarted = testKit.createTestProbe();
    ActorRef<String> actor = spawn("released-meanwhile", restarted);
    failAndAwaitRestart(actor, restarted, 1);
    ActorRef<GateProtocol.Command> first = registry.current("released-meanwhile").orElseThrow();
    RestartBudgets.get(testKit.system()).release("released-meanwhile");
    restarted.expectTerminated(first, Duration.ofSeconds(10));
    restarted.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertTrue(
              registry.current("released-meanwhile").isEmpty(), "the released gate is forgotten");
          return null;
        });
    // no restart needs a permit: no gate is started again
    restarted.expectNoMessage(Duration.ofMillis(200));
    assertEquals(Optional.empty(), registry.current("released-meanwhile"));
    failAndAwaitRestart(actor, restarted, 3);
    ActorRef<GateProtocol.Command> second = registry.current("released-meanwhile").orElseThrow();
    assertNotEquals(first, second, "a new gate serves the budget");
    testKit.stop(actor);
  }
}
