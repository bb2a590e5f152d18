package dev.supervision.backoff.stash;

import static dev.supervision.backoff.stash.Countdowns.ask;
import static dev.supervision.backoff.stash.Countdowns.child;
import static dev.supervision.backoff.stash.Countdowns.policy;
import static dev.supervision.backoff.stash.Countdowns.telling;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The handler while backing off is told the time left until the scheduled restart: the delay right
 * after the failure, then less as the scheduler's time passes, in ticks of the delay / 16 (at least
 * 10 ms): with {@code left} the time really left, {@code left <= untilRestart < left + tick}, never
 * below one tick before the restart, whatever steps the time takes. Only a policy with a handler
 * has the timer that counts the ticks, and only while a backoff is pending.
 */
final class TheHandlerIsToldTheTimeLeftUntilTheRestartTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void inFewLargeStepsTheTimeLeftShrinksByTheTimePassedAndNeverBelowOneTick() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    // 1600 ms: ticks of 100 ms
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(Duration.ofMillis(1600), events).withHandlerWhileBackingOff(telling(seen))));
    actor.tell("fail");
    events.expectRestartScheduled();
    assertEquals(Duration.ofMillis(1600), ask(actor, seen), "the delay, right after the failure");
    kit.time().timePasses(Duration.ofMillis(800));
    assertEquals(Duration.ofMillis(800), ask(actor, seen), "less by the time passed");
    kit.time().timePasses(Duration.ofMillis(799)); // 1 ms left
    assertEquals(Duration.ofMillis(100), ask(actor, seen), "one tick: never below, never 0");
    kit.time().timePasses(Duration.ofMillis(1));
    events.expectRestarted();

    // the next backoff counts from its own start, even after a step far beyond its delay
    actor.tell("fail");
    assertEquals(Duration.ofMillis(3200), events.expectRestartScheduled().delay());
    assertEquals(Duration.ofMillis(3200), ask(actor, seen));
    kit.time().timePasses(Duration.ofMillis(1000));
    assertEquals(Duration.ofMillis(2200), ask(actor, seen));
    kit.time().timePasses(Duration.ofHours(1));
    events.expectRestarted();
    actor.tell("fail");
    events.expectRestartScheduled();
    assertEquals(Duration.ofMillis(6400), ask(actor, seen));
  }

  @Test
  void inSmallStepsTheTimeLeftIsAtMostOneTickAboveTheTimeReallyLeft() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Duration delay = Duration.ofMillis(200);
    long tick = 13; // 200 ms / 16, rounded up to a whole millisecond
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(), policy(delay, events).withHandlerWhileBackingOff(telling(seen))));
    actor.tell("fail");
    events.expectRestartScheduled();
    long elapsed = 0;
    long previous = delay.toMillis();
    for (long step : new long[] {7, 7, 7, 30, 30, 30, 30, 30, 20, 8}) {
      kit.time().timePasses(Duration.ofMillis(step));
      elapsed += step;
      long left = delay.toMillis() - elapsed;
      long told = ask(actor, seen).toMillis();
      String at = "after " + elapsed + " ms, told " + told + " ms";
      assertTrue(told >= left && told < left + tick, at + ": within one tick above " + left);
      assertTrue(told >= tick && told <= delay.toMillis(), at + ": in [tick, delay]");
      assertTrue(told <= previous, at + ": never more than before (" + previous + ")");
      previous = told;
    }
    assertEquals(tick, previous, "1 ms left: one tick");
    kit.time().timePasses(Duration.ofMillis(1));
    events.expectRestarted();
  }
}
