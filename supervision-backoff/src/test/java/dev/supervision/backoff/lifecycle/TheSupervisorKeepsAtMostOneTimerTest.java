package dev.supervision.backoff.lifecycle;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.ManualTimers;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A supervisor has at most one timer on the scheduler: the restart tick during a backoff, the reset
 * tick after a restart, none once the reset has fired or the actor has stopped (however it stopped).
 * Counted on the manual scheduler itself, so a timer that is left behind shows even though its tick
 * would be ignored when it fires.
 */
final class TheSupervisorKeepsAtMostOneTimerTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static int scheduledTimers() {
    return ManualTimers.count(kit.system());
  }

  private static void awaitTimers(int expected) {
    ManualTimers.await(kit.system(), expected);
  }

  private static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofSeconds(1))
        .withListener(events.ref()::tell);
  }

  @Test
  void oneTimerDuringTheBackoffOneAfterTheRestartNoneAfterTheResetOrAStop() {
    int before = scheduledTimers();
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy(events)));
    probe.expectMessage("started");
    awaitTimers(before);
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    awaitTimers(before + 1);
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class);
    awaitTimers(before + 1);
    actor.tell("fail"); // the reset tick is cancelled, the restart tick scheduled
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    awaitTimers(before + 1);
    kit.time().timePasses(Duration.ofMillis(200));
    events.expectMessageClass(BackoffEvent.Restarted.class);
    kit.time().timePasses(Duration.ofSeconds(1));
    events.expectMessageClass(BackoffEvent.BackoffReset.class);
    awaitTimers(before);
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class);
    actor.tell("stop"); // the child stops the actor while its reset tick is pending
    kit.createTestProbe().expectTerminated(actor);
    awaitTimers(before);
  }

  @Test
  void anActorStoppedDuringItsBackoffLeavesNoRestartTickBehind() {
    int before = scheduledTimers();
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy(events)));
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.testKit().stop(actor);
    events.expectMessageClass(BackoffEvent.StoppedDuringBackoff.class);
    awaitTimers(before); // the stop's ask has a timeout task too, until its answer comes
  }

  @Test
  void anActorThatGivesUpLeavesNoTimerBehind() {
    int before = scheduledTimers();
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), policy(events).withMaxRestarts(1)));
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class); // the reset tick is pending
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.GaveUp.class);
    kit.createTestProbe().expectTerminated(actor);
    awaitTimers(before);
  }

  /** On "rewrap", re-wraps (inside a setup) a behavior whose start fails; fails on "fail". */
  private static Behavior<String> reWrappingIntoAFailingStart(BackoffPolicy policy) {
    return Behaviors.receiveMessage(
        m -> {
          if (m.equals("rewrap")) {
            return Behaviors.setup(
                ctx ->
                    BackoffSupervisor.wrap(
                        Behaviors.<String>setup(
                            c -> {
                              throw new TestChild.Boom("start");
                            }),
                        policy));
          }
          throw new TestChild.Boom(m);
        });
  }

  /**
   * A re-wrap whose start fails begins its own backoff and the layer it replaces leaves: that
   * layer's pending reset tick is cancelled, so only the new layer's restart tick is left.
   */
  @Test
  void aLayerReplacedByAReWrapThatFailedToStartLeavesNoResetTickBehind() {
    int before = scheduledTimers();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy = policy(events);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(reWrappingIntoAFailingStart(policy), policy));
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class);
    awaitTimers(before + 1); // the reset tick
    actor.tell("rewrap");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class); // the new layer's backoff
    awaitTimers(before + 1); // its restart tick, and no reset tick of the layer it replaced
    kit.testKit().stop(actor);
    awaitTimers(before);
  }
}
