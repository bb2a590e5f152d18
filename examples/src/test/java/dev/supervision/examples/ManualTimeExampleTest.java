package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * How to test a supervised actor with ManualTime: the restart is timed by the actor system's
 * scheduler, so advancing the manual clock drives it exactly, without waiting in real time.
 */
final class ManualTimeExampleTest {

  // one kit for the class, shut down once (an instance-field extension would leak kits)
  static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  static final ManualTime time = ManualTime.get(testKit.system());

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @Test
  void aWorkerComesBackExactlyAfterItsBackoff() {
    FlakyDatabase db = new FlakyDatabase();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(5))
            .withJitter(Jitter.none()); // deterministic delays for the test: 200, 400, 800 ms ...
    ActorRef<Worker.Query> worker = testKit.spawn(BackoffSupervisor.wrap(Worker.create(db), policy));
    TestProbe<String> replies = testKit.createTestProbe();

    worker.tell(new Worker.Query("q0", replies.ref()));
    replies.expectMessage("result of q0"); // started and connected

    int callsBefore = db.calls();
    db.setUp(false);
    worker.tell(new Worker.Query("q1", replies.ref())); // fails: restart scheduled in 200 ms
    worker.tell(new Worker.Query("q2", replies.ref())); // stashed during the backoff
    replies.awaitAssert(() -> {
      assertEquals(callsBefore + 1, db.calls()); // q1 reached the database (and failed)
      return null;
    });
    db.setUp(true);

    time.timePasses(Duration.ofMillis(199));
    replies.expectNoMessage(Duration.ofMillis(200)); // wait in real time: nothing before 200 ms
    time.timePasses(Duration.ofMillis(1));
    replies.expectMessage("result of q2"); // restarted, and the stashed query is answered
  }
}
