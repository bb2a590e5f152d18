package dev.supervision.backoff.stash;

import static dev.supervision.backoff.stash.Countdowns.ask;
import static dev.supervision.backoff.stash.Countdowns.child;
import static dev.supervision.backoff.stash.Countdowns.policy;
import static dev.supervision.backoff.stash.Countdowns.telling;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Gates;
import dev.supervision.backoff.testsupport.ManualTimers;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Once the delay has passed and the restart waits for a budget's permit, no countdown runs: the
 * handler is told the minimum backoff (counted on the ManualTime scheduler of a system of its own).
 */
final class NoCountdownRunsWhileARestartWaitsForAPermitTest {

  // its own actor system: the timers of other tests' actors must not be counted
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /**
   * Fails {@code actor} twice under a budget of one permit per hour, so that the second restart
   * waits for a permit once its delay has passed; returns how many timers the scheduler holds then
   * more than before the second failure (the budget's gate has a timer of its own).
   */
  private static int timersAddedWhileWaitingForAPermit(
      ActorRef<String> actor, BackoffProbe events, Duration delay, RestartBudget budget) {
    actor.tell("fail");
    events.expectRestartScheduled(actor);
    kit.time().timePasses(delay);
    events.expectWaitingForPermit(actor);
    events.expectPermitGranted(actor);
    events.expectRestarted(actor);
    gateHasHandled(budget);
    int before = ManualTimers.count(kit.system());
    actor.tell("fail");
    assertEquals(delay.multipliedBy(2), events.expectRestartScheduled(actor).delay());
    kit.time().timePasses(delay.multipliedBy(2));
    events.expectWaitingForPermit(actor);
    gateHasHandled(budget);
    return ManualTimers.count(kit.system()) - before;
  }

  /**
   * Returns once the budget's gate has handled every message sent to it before this call, and set
   * the timers they ask for: the supervisor's request for a permit is in the gate's mailbox before
   * the event that tells of it, and the gate answers a query only after the messages ahead of it.
   * The query is told, not asked: an ask would put a timeout task on the scheduler being counted.
   */
  private static void gateHasHandled(RestartBudget budget) {
    ActorRef<GateProtocol.Command> gate = RestartBudgets.get(kit.system()).gate(budget);
    assertEquals(budget.getName(), Gates.status(kit.testKit(), gate).name());
  }

  @Test
  void onceTheDelayHasPassedAndTheRestartWaitsForAPermitNoCountdownRuns() {
    TestProbe<Duration> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Duration delay = Duration.ofMillis(300);
    RestartBudget plainBudget = RestartBudget.of("countdown-plain", 1, Duration.ofHours(1));
    RestartBudget handlerBudget = RestartBudget.of("countdown-handler", 1, Duration.ofHours(1));
    ActorRef<String> plain =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withBudget(plainBudget)
                    .withAggregatedLogging(false))); // no herd-log window timer
    int withoutHandler = timersAddedWhileWaitingForAPermit(plain, events, delay, plainBudget);
    ActorRef<String> answering =
        kit.spawn(
            BackoffSupervisor.wrap(
                child(),
                policy(delay, events)
                    .withHandlerWhileBackingOff(telling(seen))
                    .withBudget(handlerBudget)
                    .withAggregatedLogging(false))); // no herd-log window timer
    int withHandler = timersAddedWhileWaitingForAPermit(answering, events, delay, handlerBudget);
    assertEquals(withoutHandler, withHandler, "no countdown once the delay has passed");
    assertEquals(delay, ask(answering, seen), "minBackoff while it waits for the permit");
    kit.testKit().stop(answering);
    kit.testKit().stop(plain);
  }
}
