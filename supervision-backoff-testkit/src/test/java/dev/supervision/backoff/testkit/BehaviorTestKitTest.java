package dev.supervision.backoff.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.Effect;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.junit.jupiter.api.Test;

/**
 * What a wrapped behavior does in Pekko's synchronous BehaviorTestKit: the restart's delay is the
 * Scheduled effect's duration, the tick restarts only when delivered as a signal, budgets fail.
 */
final class BehaviorTestKitTest {

  private final List<BackoffEvent> events = new CopyOnWriteArrayList<>();
  private final TestInbox<String> echo = TestInbox.create();

  private BehaviorTestKit<String> kit(BackoffPolicy policy) {
    return BehaviorTestKit.create(
        BackoffSupervisor.wrap(Child.create(echo.getRef()), policy.withListener(events::add)));
  }

  private static BackoffPolicy policy() {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
        .withRandomSeed(7)
        .withResetAfter(Duration.ofSeconds(30));
  }

  @Test
  void theScheduledEffectCarriesTheDrawnDelay_andFiringItRestartsAndReplaysTheStash() {
    BehaviorTestKit<String> kit = kit(policy());
    kit.run("fail");
    kit.run("stashed");
    assertEquals(List.of(), echo.getAllReceived(), "stashed during the backoff");

    Effect.Scheduled<?> restart = BackoffEffects.expectTick(kit);
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.get(0));
    assertEquals(scheduled.delay(), restart.duration());

    BackoffEffects.fire(kit, restart);
    assertInstanceOf(BackoffEvent.Restarted.class, events.get(1));
    assertEquals(List.of("stashed"), echo.getAllReceived());

    Effect.Scheduled<?> reset = BackoffEffects.expectTick(kit);
    assertEquals(Duration.ofSeconds(30), reset.duration());
    BackoffEffects.fire(kit, reset);
    assertInstanceOf(BackoffEvent.BackoffReset.class, events.get(2));
  }

  @Test
  void aTickDeliveredAsAMessage_isStashed_andFailsTheRestartedChild() {
    BehaviorTestKit<String> kit = kit(policy());
    kit.run("fail");
    Effect.Scheduled<?> restart = BackoffEffects.expectTick(kit);
    runUnchecked(kit, restart.message()); // the trap that fire() avoids
    assertEquals(1, events.size(), "nothing happened: the tick waits in the stash");

    BackoffEffects.fire(kit, restart);
    // restarted, then the stashed tick reached the child as a String message and failed it
    assertInstanceOf(BackoffEvent.Restarted.class, events.get(1));
    BackoffEvent.RestartScheduled again =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.get(2));
    assertInstanceOf(ClassCastException.class, again.cause());
  }

  @Test
  void aPolicyWithABudget_cannotStart_becauseTheStubSystemHasNoExtensions() {
    BackoffPolicy withBudget =
        policy().withBudget(RestartBudget.of("sync", 1, Duration.ofSeconds(1)));
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> kit(withBudget));
    assertTrue(e.getMessage().contains("extensions"), e.getMessage());
  }

  @Test
  void aPermanentFailure_isThrownByRun_afterTheGaveUpEvent() {
    BehaviorTestKit<String> kit = kit(policy().withStopOn(Child.Permanent.class));
    assertThrows(Child.Permanent.class, () -> kit.run("fatal"));
    BackoffEvent.GaveUp gaveUp = assertInstanceOf(BackoffEvent.GaveUp.class, events.get(0));
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
  }

  @Test
  void expectTick_withoutATick_namesTheActorAndTheEffects() {
    BehaviorTestKit<String> kit = kit(policy());
    kit.run("hello");
    AssertionError e = assertThrows(AssertionError.class, () -> BackoffEffects.expectTick(kit));
    assertTrue(e.getMessage().contains(kit.getRef().path().toString()), e.getMessage());
    assertTrue(e.getMessage().contains("effects were []"), e.getMessage());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void runUnchecked(BehaviorTestKit kit, Object message) {
    kit.run(message);
  }
}
