package dev.supervision.backoff.stash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;
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

  /** Tells {@code seen} the time left it is given for each message, and answers it. */
  static BackoffHandler telling(TestProbe<Duration> seen) {
    return (message, untilRestart) -> {
      seen.ref().tell(untilRestart);
      return true;
    };
  }

  static BackoffPolicy policy(Duration delay, BackoffProbe events) {
    return BackoffPolicy.exponential(delay, Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.listener());
  }

  /** Throws on "fail"; ignores anything else. */
  static Behavior<String> child() {
    return Behaviors.receiveMessage(
        m -> {
          if (m.equals("fail")) {
            throw new IllegalStateException("fail");
          }
          return Behaviors.same();
        });
  }

  static Duration ask(ActorRef<String> actor, TestProbe<Duration> seen) {
    actor.tell("q");
    return seen.receiveMessage();
  }

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

  private static int scheduledTimers() {
    ExplicitlyTriggeredScheduler scheduler =
        (ExplicitlyTriggeredScheduler) Adapter.toClassic(kit.system()).scheduler();
    // Scala's name for the private[testkit] map of scheduled items; public in the bytecode
    return scheduler.org$apache$pekko$testkit$ExplicitlyTriggeredScheduler$$scheduled().size();
  }

  /** Waits (up to 3 s) until the scheduler holds {@code expected} timers (asks have some too). */
  private static void awaitTimers(int expected) {
    kit.createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(3),
            () -> {
              assertEquals(expected, scheduledTimers(), "timers on the scheduler");
              return null;
            });
  }

  @Test
  void onlyAPolicyWithAHandlerCountsTheTicksAndOnlyWhileItsBackoffIsPending() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Duration delay = Duration.ofMillis(500);
    int before = scheduledTimers();
    ActorRef<String> plain = kit.spawn(BackoffSupervisor.wrap(child(), policy(delay, events)));
    awaitTimers(before);
    plain.tell("fail");
    events.expectRestartScheduled(plain);
    awaitTimers(before + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(plain);
    awaitTimers(before + 1); // the reset tick

    int running = scheduledTimers();
    ActorRef<String> answering =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(), policy(delay, events).withHandlerWhileBackingOff(telling(seen))));
    awaitTimers(running);
    answering.tell("fail");
    events.expectRestartScheduled(answering);
    awaitTimers(running + 2); // the restart tick and the countdown
    kit.time().timePasses(delay);
    events.expectRestarted(answering);
    awaitTimers(running + 1); // the reset tick: the countdown is cancelled

    // a policy that needs the classic supervisor for another option, but has no handler
    int now = scheduledTimers();
    ActorRef<String> finalStop =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withRestartOnStop(true)
                    .withFinalStopMessage(m -> m.equals("bye"))));
    awaitTimers(now);
    finalStop.tell("fail");
    events.expectRestartScheduled(finalStop);
    awaitTimers(now + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(finalStop);
    kit.testKit().stop(finalStop);
    kit.testKit().stop(answering);
    kit.testKit().stop(plain);
    awaitTimers(before);
  }

  /**
   * Fails {@code actor} twice under a budget of one permit per hour, so that the second restart
   * waits for a permit once its delay has passed; returns how many timers the scheduler holds then
   * more than before the second failure (the budget's gate has a timer of its own).
   */
  private static int timersAddedWhileWaitingForAPermit(
      ActorRef<String> actor, BackoffProbe events, Duration delay) {
    actor.tell("fail");
    events.expectRestartScheduled(actor);
    kit.time().timePasses(delay);
    events.expectWaitingForPermit(actor);
    events.expectPermitGranted(actor);
    events.expectRestarted(actor);
    kit.createTestProbe().expectNoMessage(Duration.ofMillis(200)); // the gate settles
    int before = scheduledTimers();
    actor.tell("fail");
    assertEquals(delay.multipliedBy(2), events.expectRestartScheduled(actor).delay());
    kit.time().timePasses(delay.multipliedBy(2));
    events.expectWaitingForPermit(actor);
    kit.createTestProbe().expectNoMessage(Duration.ofMillis(200)); // the gate settles
    return scheduledTimers() - before;
  }

  @Test
  void onceTheDelayHasPassedAndTheRestartWaitsForAPermitNoCountdownRuns() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Duration delay = Duration.ofMillis(300);
    ActorRef<String> plain =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withBudget(RestartBudget.of("countdown-plain", 1, Duration.ofHours(1)))
                    .withAggregatedLogging(false))); // no herd-log window timer
    int withoutHandler = timersAddedWhileWaitingForAPermit(plain, events, delay);
    ActorRef<String> answering =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withHandlerWhileBackingOff(telling(seen))
                    .withBudget(RestartBudget.of("countdown-handler", 1, Duration.ofHours(1)))
                    .withAggregatedLogging(false))); // no herd-log window timer
    int withHandler = timersAddedWhileWaitingForAPermit(answering, events, delay);
    assertEquals(withoutHandler, withHandler, "no countdown once the delay has passed");
    assertEquals(delay, ask(answering, seen), "minBackoff while it waits for the permit");
    kit.testKit().stop(answering);
    kit.testKit().stop(plain);
  }
}
