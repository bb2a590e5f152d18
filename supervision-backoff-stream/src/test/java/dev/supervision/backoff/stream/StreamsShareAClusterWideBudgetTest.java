package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.stream.Probes.Boom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A stream whose policy names a cluster-wide budget asks the budget's cluster gate (made by the
 * cluster module) for its permits, in one queue with the other streams of the budget: two streams
 * that fail for ever under a budget of one permit a minute get one restart between them.
 */
final class StreamsShareAClusterWideBudgetTest {

  static final ActorTestKit testKit =
      ActorTestKit.create(
          "stream-cluster-budget",
          ConfigFactory.parseString(
                  String.join(
                      "\n",
                      "pekko.actor.provider = cluster",
                      "pekko.remote.artery.canonical.hostname = 127.0.0.1",
                      "pekko.remote.artery.canonical.port = 0",
                      "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on"))
              .withFallback(ConfigFactory.load()));

  static {
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
  }

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  @Test
  void twoStreamsOfOneClusterWideBudgetShareItsPermit() {
    RestartBudget budget =
        RestartBudget.of("cluster-feed", 1, Duration.ofSeconds(60)).withBurst(1).clusterWide();
    List<BackoffEvent> events = new CopyOnWriteArrayList<>();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(10), Duration.ofMillis(10))
            .withJitter(Jitter.none())
            .withLoggingEnabled(false)
            .withBudget(budget)
            .withListener(events::add);
    List<SinkQueueWithCancel<String>> streams = new ArrayList<>();
    for (String name : List.of("left", "right")) {
      streams.add(
          BackoffSource.withBackoff(name, policy, () -> Source.<String>failed(new Boom(name)))
              .runWith(Sink.queue(), testKit.system()));
    }
    // each stream fails at once, waits 10 ms and asks the budget; its one permit restarts one of
    // them, which fails again and waits behind the other: then both wait, for a minute. (A stream
    // tells its WaitingForPermit after it has asked the gate: the gate may count it first.)
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(
        Duration.ofSeconds(20),
        () -> {
          assertEquals(
              2, Probes.await(RestartBudgets.get(testKit.system()).waiting("cluster-feed")));
          assertEquals(
              3, events.stream().filter(BackoffEvent.WaitingForPermit.class::isInstance).count());
          return null;
        });
    assertEquals(
        1,
        events.stream().filter(BackoffEvent.PermitGranted.class::isInstance).count(),
        "one permit for the two streams: " + events);
    assertEquals(
        3,
        events.stream().filter(BackoffEvent.WaitingForPermit.class::isInstance).count(),
        "each stream asked, the restarted one twice: " + events);
    streams.forEach(SinkQueueWithCancel::cancel);
  }
}
