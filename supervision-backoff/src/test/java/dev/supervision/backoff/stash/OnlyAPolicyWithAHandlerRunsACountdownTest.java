package dev.supervision.backoff.stash;

import static dev.supervision.backoff.stash.Countdowns.child;
import static dev.supervision.backoff.stash.Countdowns.policy;
import static dev.supervision.backoff.stash.Countdowns.telling;

import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.ManualTimers;
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
    int before = ManualTimers.count(kit.system());
    ActorRef<String> plain = kit.spawn(BackoffSupervisor.wrap(child(), policy(delay, events)));
    ManualTimers.await(kit.system(), before);
    plain.tell("fail");
    events.expectRestartScheduled(plain);
    ManualTimers.await(kit.system(), before + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(plain);
    ManualTimers.await(kit.system(), before + 1); // the reset tick

    int running = ManualTimers.count(kit.system());
    ActorRef<String> answering =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(), policy(delay, events).withHandlerWhileBackingOff(telling(seen))));
    ManualTimers.await(kit.system(), running);
    answering.tell("fail");
    events.expectRestartScheduled(answering);
    ManualTimers.await(kit.system(), running + 2); // the restart tick and the countdown
    kit.time().timePasses(delay);
    events.expectRestarted(answering);
    ManualTimers.await(kit.system(), running + 1); // the reset tick: the countdown is cancelled

    // a policy that needs the classic supervisor for another option, but has no handler
    int now = ManualTimers.count(kit.system());
    ActorRef<String> finalStop =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withRestartOnStop(true)
                    .withFinalStopMessage(m -> m.equals("bye"))));
    ManualTimers.await(kit.system(), now);
    finalStop.tell("fail");
    events.expectRestartScheduled(finalStop);
    ManualTimers.await(kit.system(), now + 1); // the restart tick only
    kit.time().timePasses(delay);
    events.expectRestarted(finalStop);
    kit.testKit().stop(finalStop);
    kit.testKit().stop(answering);
    kit.testKit().stop(plain);
    ManualTimers.await(kit.system(), before);
  }
}
