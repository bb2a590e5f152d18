package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.micrometer.BackoffMetrics;
import dev.supervision.examples.ConfiguredWorkerExample.Process;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Runs ConfiguredWorkerExample with the application.conf of the examples module. */
final class ConfiguredWorkerExampleTest {

  static final ActorTestKit testKit =
      ActorTestKit.create(
          ManualTime.config()
              .withFallback(ConfigFactory.parseString("bad-worker-backoff { jitter = fulll }"))
              .withFallback(ConfigFactory.load()));
  static final ManualTime time = ManualTime.get(testKit.system());

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @Test
  void workerRestartsWithinTheConfiguredBackoffAndIsCountedAndAlerted() {
    Config config = testKit.system().settings().config();
    Duration minBackoff = config.getDuration(ConfiguredWorkerExample.POLICY_PATH + ".min-backoff");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    TestProbe<String> alerts = testKit.createTestProbe();
    testKit.spawn(ConfiguredWorkerExample.restartMonitor(alerts.ref()));
    // the monitor subscribes in its setup: publish markers until one reaches it
    BackoffEvent.RestartScheduled marker =
        new BackoffEvent.RestartScheduled(alerts.ref(), 0, Duration.ZERO, new RuntimeException("marker"));
    alerts.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          testKit.system().eventStream().tell(new EventStream.Publish<>(marker));
          alerts.expectMessage(Duration.ofMillis(100), "[" + alerts.ref().path() + "] restart 0 in 0 ms after "
              + marker.cause());
          return null;
        });
    TestProbe<BackoffEvent> events = testKit.createTestProbe();
    testKit.system().eventStream().tell(new EventStream.Subscribe<>(BackoffEvent.class, events.ref()));
    testKit.system().eventStream().tell(new EventStream.Publish<>(marker));
    // Subscribe and Publish come from this thread, so the marker is the first event the probe gets
    assertEquals(marker, events.receiveMessage());

    TestProbe<String> replies = testKit.createTestProbe();
    ActorRef<ConfiguredWorkerExample.Command> worker =
        testKit.spawn(ConfiguredWorkerExample.create(registry), "worker");
    worker.tell(new Process("a", replies.ref()));
    replies.expectMessage("done:a");

    worker.tell(new Process("flaky", replies.ref()));
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    assertEquals(worker, scheduled.actor());
    assertEquals(1, scheduled.attempt());
    assertTrue(scheduled.delay().compareTo(minBackoff) <= 0, "full jitter within min-backoff: " + scheduled);
    assertInstanceOf(ConfiguredWorkerExample.ResourceUnavailable.class, scheduled.cause());
    alerts.fishForMessage(
        Duration.ofSeconds(3),
        a -> a.equals("[" + worker.path() + "] restart 1 in " + scheduled.delay().toMillis()
                + " ms after " + scheduled.cause())
            ? FishingOutcomes.complete()
            : FishingOutcomes.continueAndIgnore());

    worker.tell(new Process("b", replies.ref())); // stashed during the backoff
    time.timePasses(scheduled.delay());
    // the policy names the budget worker-db, which has permits to spare: granted at once
    assertEquals(new BackoffEvent.WaitingForPermit(worker, 1, "worker-db"), events.receiveMessage());
    assertEquals(new BackoffEvent.PermitGranted(worker, 1, "worker-db"), events.receiveMessage());
    assertEquals(new BackoffEvent.Restarted(worker, 1), events.receiveMessage());
    replies.expectMessage("done:b");

    assertEquals(1.0, registry.get(BackoffMetrics.RESTARTS_SCHEDULED).tag("name", "worker").counter().count());
    assertEquals(1.0, registry.get(BackoffMetrics.RESTARTS).tag("name", "worker").counter().count());
    assertEquals(
        scheduled.delay().toNanos(),
        registry.get(BackoffMetrics.DELAY).tag("name", "worker").timer().totalTime(TimeUnit.NANOSECONDS));
    testKit.stop(worker);
  }

  @Test
  void badPolicyStopsTheWorkerAtStartNamingTheSetting() {
    TestProbe<Object> watcher = testKit.createTestProbe();
    ActorRef<ConfiguredWorkerExample.Command> worker =
        // Pekko logs the failure of an unsupervised setup with the exception's message
        LoggingTestKit.error("bad-worker-backoff.jitter: \"fulll\" is not one of full, equal, decorrelated, none")
            .expect(
                testKit.system(),
                () -> testKit.spawn(ConfiguredWorkerExample.create(new SimpleMeterRegistry(), "bad-worker-backoff")));
    watcher.expectTerminated(worker);
  }
}
