package dev.supervision.backoff.stash;

import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Only a policy with a handler while backing off has the timer that counts the time left, and only
 * while a backoff is pending (counted on the ManualTime scheduler of a system of its own).
 */
final class OnlyAPolicyWithAHandlerRunsACountdownTest {

  // its own actor system: the timers of other tests' actors must not be counted
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void onlyAPolicyWithAHandlerCountsTheTicksAndOnlyWhileItsBackoffIsPending() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Duration delay = Duration.ofMillis(500);
    int before = TheHandlerIsToldTheTimeLeftUntilTheRestartTest.scheduledTimers(kit);
    ActorRef<String> plain =
        kit.spawn(
            BackoffSupervisor.wrap(
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.child(),
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.policy(delay, events)));
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(kit, before);
    plain.tell("fail");
    events.expectRestartScheduled(plain);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(
        kit, before + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(plain);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(kit, before + 1); // the reset tick

    int running = TheHandlerIsToldTheTimeLeftUntilTheRestartTest.scheduledTimers(kit);
    ActorRef<String> answering =
        kit.spawn(
            BackoffSupervisor.wrap(
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.child(),
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.policy(delay, events)
                    .withHandlerWhileBackingOff(
                        TheHandlerIsToldTheTimeLeftUntilTheRestartTest.telling(seen))));
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(kit, running);
    answering.tell("fail");
    events.expectRestartScheduled(answering);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(
        kit, running + 2); // the restart tick and the countdown
    kit.time().timePasses(delay);
    events.expectRestarted(answering);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(
        kit, running + 1); // the reset tick: the countdown is cancelled

    // a policy that needs the classic supervisor for another option, but has no handler
    int now = TheHandlerIsToldTheTimeLeftUntilTheRestartTest.scheduledTimers(kit);
    ActorRef<String> finalStop =
        kit.spawn(
            BackoffSupervisor.wrap(
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.child(),
                TheHandlerIsToldTheTimeLeftUntilTheRestartTest.policy(delay, events)
                    .withRestartOnStop(true)
                    .withFinalStopMessage(m -> m.equals("bye"))));
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(kit, now);
    finalStop.tell("fail");
    events.expectRestartScheduled(finalStop);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(
        kit, now + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(finalStop);
    kit.testKit().stop(finalStop);
    kit.testKit().stop(answering);
    kit.testKit().stop(plain);
    TheHandlerIsToldTheTimeLeftUntilTheRestartTest.awaitTimers(kit, before);
  }

  /**
   * Fails {@code actor} twice under a budget of one permit per hour, so that the second restart
   * waits for a permit once its delay has passed; returns how many timers the scheduler holds then
   * more than before the second failure (the budget's gate has a timer of its own).
   */
}
