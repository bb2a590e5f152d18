package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The singleton example on a one-node cluster, in real time. */
final class SingletonWorkerExampleTest {

  static final ActorTestKit testKit =
      ActorTestKit.create(SingleNodeCluster.start("singleton-worker-example"));

  @AfterAll
  static void shutdown() {
    // a cluster node leaves the cluster and hands off its shards first: give it more than the 10 s
    // default
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  @Test
  void theSingletonRestartsInPlaceAndAnswersTheMessagesSentDuringItsBackoff() {
    FlakyDatabase db = new FlakyDatabase();
    ActorRef<Worker.Query> proxy = SingletonWorkerExample.initSingleton(testKit.system(), db);
    TestProbe<String> replies = testKit.createTestProbe();

    proxy.tell(new Worker.Query("q0", replies.ref()));
    // the node joins itself and becomes the oldest: the proxy buffers until the singleton runs
    replies.expectMessage(Duration.ofSeconds(20), "result of q0");

    int callsBefore = db.calls();
    db.setUp(false);
    LoggingTestKit.custom(event -> event.message().contains("(attempt 1), restarting in"))
        .expect(
            testKit.system(),
            () -> {
              proxy.tell(
                  new Worker.Query(
                      "q1", replies.ref())); // fails: the supervisor schedules a restart
              return null;
            });
    proxy.tell(
        new Worker.Query("q2", replies.ref())); // stashed in the singleton during its backoff
    replies.awaitAssert(
        () -> {
          assertTrue(db.calls() > callsBefore);
          return null;
        });
    db.setUp(true);
    replies.expectMessage(Duration.ofSeconds(10), "result of q2");
    replies.expectNoMessage(Duration.ofMillis(200)); // q1 failed: it is not delivered again
  }
}
