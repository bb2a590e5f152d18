package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.micrometer.BackoffMetrics;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.examples.ConfiguredWorkerExample.Process;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs ConfiguredWorkerExample with the application.conf of the examples module. */
final class ConfiguredWorkerExampleTest {

  @RegisterExtension
  static final BackoffTestKit kit =
      BackoffTestKit.create(
          ConfigFactory.parseString("bad-worker-backoff { jitter = fulll }")
              .withFallback(ConfigFactory.load()));

  @Test
  void workerRestartsWithinTheConfiguredBackoffAndIsCountedAndAlerted() {
    ActorTestKit testKit = kit.testKit();
    Config config = testKit.system().settings().config();
    Duration minBackoff = config.getDuration(ConfiguredWorkerExample.POLICY_PATH + ".min-backoff");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(registry);

    TestProbe<String> alerts = testKit.createTestProbe();
    testKit.spawn(ConfiguredWorkerExample.restartMonitor(alerts.ref()));
    // the monitor subscribes in its setup: publish markers until one reaches it
    BackoffEvent.RestartScheduled marker =
        new BackoffEvent.RestartScheduled(
            alerts.ref(), 0, Duration.ZERO, new RuntimeException("marker"), false);
    alerts.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          testKit.system().eventStream().tell(new EventStream.Publish<>(marker));
          alerts.expectMessage(
              Duration.ofMillis(100),
              "[" + alerts.ref().path() + "] restart 0 in 0 ms after " + marker.cause());
          return null;
        });
    // the policy comes from application.conf, which has publish-events = on: the probe listens on
    // the event stream, without a change to the example's code
    BackoffProbe events = kit.createProbe().subscribeToEventStream();

    TestProbe<String> replies = testKit.createTestProbe();
    ActorRef<ConfiguredWorkerExample.Command> worker =
        testKit.spawn(ConfiguredWorkerExample.create(metrics), "worker");
    worker.tell(new Process("a", replies.ref()));
    replies.expectMessage("done:a");

    worker.tell(new Process("flaky", replies.ref()));
    BackoffEvent.RestartScheduled scheduled = events.expectRestartScheduled(worker);
    assertEquals(1, scheduled.attempt());
    assertTrue(
        scheduled.delay().compareTo(minBackoff) <= 0,
        "full jitter within min-backoff: " + scheduled);
    assertInstanceOf(ConfiguredWorkerExample.ResourceUnavailable.class, scheduled.cause());
    alerts.fishForMessage(
        Duration.ofSeconds(3),
        a ->
            a.equals(
                    "["
                        + worker.path()
                        + "] restart 1 in "
                        + scheduled.delay().toMillis()
                        + " ms after "
                        + scheduled.cause())
                ? FishingOutcomes.complete()
                : FishingOutcomes.continueAndIgnore());

    worker.tell(new Process("b", replies.ref())); // stashed during the backoff
    events.advanceToRestart(kit.time());
    // the policy names the budget worker-db, which has permits to spare: granted at once
    assertEquals(
        new BackoffEvent.WaitingForPermit(worker, 1, "worker-db"),
        events.expectWaitingForPermit(worker));
    assertEquals(
        new BackoffEvent.PermitGranted(worker, 1, "worker-db"), events.expectPermitGranted(worker));
    assertEquals(new BackoffEvent.Restarted(worker, 1), events.expectRestarted(worker));
    replies.expectMessage("done:b");

    assertEquals(
        1.0,
        registry.get(BackoffMetrics.RESTARTS_SCHEDULED).tag("name", "worker").counter().count());
    assertEquals(
        1.0, registry.get(BackoffMetrics.RESTARTS).tag("name", "worker").counter().count());
    assertEquals(
        scheduled.delay().toNanos(),
        registry
            .get(BackoffMetrics.DELAY)
            .tag("name", "worker")
            .timer()
            .totalTime(TimeUnit.NANOSECONDS));
    testKit.stop(worker);
  }

  @Test
  void badPolicyStopsTheWorkerAtStartNamingTheSetting() {
    ActorTestKit testKit = kit.testKit();
    BackoffMetrics metrics = new BackoffMetrics();
    metrics.bindTo(new SimpleMeterRegistry());
    TestProbe<Object> watcher = testKit.createTestProbe();
    ActorRef<ConfiguredWorkerExample.Command> worker =
        // Pekko logs the failure of an unsupervised setup with the exception's message
        LoggingTestKit.error(
                "bad-worker-backoff.jitter: \"fulll\" is not one of full, equal, decorrelated, none")
            .expect(
                testKit.system(),
                () -> testKit.spawn(ConfiguredWorkerExample.create(metrics, "bad-worker-backoff")));
    watcher.expectTerminated(worker);
  }
}
