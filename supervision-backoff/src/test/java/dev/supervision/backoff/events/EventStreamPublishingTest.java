package dev.supervision.backoff.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** withEventStreamPublishing: every event of a supervised actor reaches the event stream's subscribers. */
final class EventStreamPublishingTest {

  // created per class run (not in a static initializer), so that a tool that runs the class again
  // in
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static final BackoffPolicy POLICY =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withJitter(Jitter.none())
          .withResetAfter(Duration.ofSeconds(1))
          .withLoggingEnabled(false);

  /** A probe subscribed to every BackoffEvent; returns once the subscription is in effect. */
  private static TestProbe<BackoffEvent> subscriber() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BackoffEvent.class, events.ref()));
    // Subscribe and this Publish come from one thread, so the event stream handles them in order.
    BackoffEvent marker = new BackoffEvent.Restarted(events.ref(), -1);
    kit.system().eventStream().tell(new EventStream.Publish<>(marker));
    assertEquals(marker, events.receiveMessage());
    return events;
  }

  @Test
  void publishesScheduledRestartedResetAndGaveUpInOrder() {
    TestProbe<BackoffEvent> events = subscriber();
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()),
                POLICY.withMaxRestarts(1).withEventStreamPublishing(true)));
    probe.expectMessage("started");

    actor.tell("fail");
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    assertEquals(actor, scheduled.actor());
    assertEquals(1, scheduled.attempt());
    assertEquals(Duration.ofMillis(100), scheduled.delay());
    assertInstanceOf(TestChild.Boom.class, scheduled.cause());

    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    assertEquals(new BackoffEvent.Restarted(actor, 1), events.receiveMessage());

    kit.time().timePasses(Duration.ofSeconds(1));
    assertEquals(new BackoffEvent.BackoffReset(actor, 1), events.receiveMessage());

    actor.tell("fail");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    assertEquals(new BackoffEvent.Restarted(actor, 1), events.receiveMessage());
    actor.tell("fail");
    BackoffEvent.GaveUp gaveUp =
        assertInstanceOf(BackoffEvent.GaveUp.class, events.receiveMessage());
    assertEquals(actor, gaveUp.actor());
    assertEquals(1, gaveUp.attempt());
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, gaveUp.reason());
    events.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void publishesStoppedDuringBackoff() {
    TestProbe<BackoffEvent> events = subscriber();
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), POLICY.withEventStreamPublishing(true)));
    probe.expectMessage("started");
    actor.tell("fail");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    // no messages sent meanwhile: a stop (a system message) could overtake them in the mailbox
    kit.testKit().stop(actor);
    assertEquals(new BackoffEvent.StoppedDuringBackoff(actor, 1, 0), events.receiveMessage());
  }

  @Test
  void subscriberOfOneEventTypeGetsOnlyThatType() {
    TestProbe<BackoffEvent.Restarted> restarts = kit.createTestProbe();
    kit.system()
        .eventStream()
        .tell(new EventStream.Subscribe<>(BackoffEvent.Restarted.class, restarts.ref()));
    BackoffEvent.Restarted marker = new BackoffEvent.Restarted(restarts.ref(), -1);
    kit.system().eventStream().tell(new EventStream.Publish<>(marker));
    assertEquals(marker, restarts.receiveMessage());

    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), POLICY.withEventStreamPublishing(true)));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart"); // the failure is handled before the clock moves
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    assertEquals(new BackoffEvent.Restarted(actor, 1), restarts.receiveMessage());
    kit.testKit().stop(actor);
    restarts.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void publishesBudgetEvents() {
    TestProbe<BackoffEvent> events = subscriber();
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy =
        POLICY
            .withBudget(RestartBudget.of("event-stream-db", 10, Duration.ofSeconds(1)))
            .withEventStreamPublishing(true);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    assertEquals(
        new BackoffEvent.WaitingForPermit(actor, 1, "event-stream-db"), events.receiveMessage());
    assertEquals(
        new BackoffEvent.PermitGranted(actor, 1, "event-stream-db"), events.receiveMessage());
    assertEquals(new BackoffEvent.Restarted(actor, 1), events.receiveMessage());
    kit.testKit().stop(actor);
  }

  @Test
  void offByDefault() {
    assertFalse(POLICY.isEventStreamPublishing());
    assertTrue(POLICY.withEventStreamPublishing(true).isEventStreamPublishing());
    TestProbe<BackoffEvent> events = subscriber();
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger heard = new AtomicInteger();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), POLICY.withListener(e -> heard.incrementAndGet())));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    kit.testKit().stop(actor);
    events.expectNoMessage(Duration.ofMillis(200));
    assertEquals(2, heard.get()); // the listener still hears RestartScheduled and Restarted
  }
}
