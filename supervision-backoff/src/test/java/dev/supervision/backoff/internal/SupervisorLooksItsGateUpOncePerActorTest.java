package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A supervised actor with a restart budget finds its gate in the registry when it starts, and not
 * again at each restart; only after its gate stopped (here: the budget was released) does it look
 * up once more, and it still gets its permits.
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
  void restartsDoNotLookTheGateUpAgain() {
    GateRegistry registry = GateRegistry.get(testKit.system());
    TestProbe<Integer> restarted = testKit.createTestProbe();
    long before = registry.lookups();
    ActorRef<String> actor = spawn("looked-up-once", restarted);
    failAndAwaitRestart(actor, restarted, 5);
    assertEquals(1, registry.lookups() - before, "lookups for one actor's start and 5 restarts");
    testKit.stop(actor);
  }

  @Test
  void afterItsGateStoppedTheActorLooksUpOnceMoreAndStillRestarts() {
    GateRegistry registry = GateRegistry.get(testKit.system());
    TestProbe<Integer> restarted = testKit.createTestProbe();
    long before = registry.lookups();
    ActorRef<String> actor = spawn("released-meanwhile", restarted);
    failAndAwaitRestart(actor, restarted, 1);
    RestartBudgets.get(testKit.system()).release("released-meanwhile");
    restarted.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertTrue(
              registry.current("released-meanwhile").isEmpty(), "the released gate is forgotten");
          return null;
        });
    failAndAwaitRestart(actor, restarted, 3);
    assertEquals(
        2, registry.lookups() - before, "lookups: at the start, and once after the gate stopped");
    testKit.stop(actor);
  }
}
