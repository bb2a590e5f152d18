package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The sharded worker example on a one-node cluster, in real time. */
final class ShardedWorkerExampleTest {

  static final ActorTestKit testKit =
      ActorTestKit.create(SingleNodeCluster.start("sharded-worker-example"));

  @AfterAll
  static void shutdown() {
    // a cluster node leaves the cluster and hands off its shards first: give it more than the 10 s
    // default
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  @Test
  void aFailedEntityRestartsInPlaceAndAnswersTheMessagesSentDuringItsBackoff() {
    FlakyDatabase db = new FlakyDatabase();
    ShardedWorkerExample.initSharding(testKit.system(), db);
    EntityRef<Worker.Query> worker =
        ClusterSharding.get(testKit.system()).entityRefFor(ShardedWorkerExample.WORKER, "worker-1");
    TestProbe<String> replies = testKit.createTestProbe();

    worker.tell(new Worker.Query("q0", replies.ref()));
    // the node joins itself, the shard is allocated, the entity starts: sharding buffers meanwhile
    replies.expectMessage(Duration.ofSeconds(20), "result of q0");

    int callsBefore = db.calls();
    db.setUp(false);
    LoggingTestKit.custom(event -> event.message().contains("(attempt 1), restarting in"))
        .expect(
            testKit.system(),
            () -> {
              worker.tell(
                  new Worker.Query(
                      "q1", replies.ref())); // fails: the supervisor schedules a restart
              return null;
            });
    worker.tell(new Worker.Query("q2", replies.ref())); // stashed in the entity during its backoff
    replies.awaitAssert(
        () -> {
          assertTrue(db.calls() > callsBefore);
          return null;
        });
    db.setUp(true);
    // without the supervisor the entity would stop, and q2 would start a new one that fails too
    replies.expectMessage(Duration.ofSeconds(10), "result of q2");
    replies.expectNoMessage(Duration.ofMillis(200)); // q1 failed: it is not delivered again
  }
}
