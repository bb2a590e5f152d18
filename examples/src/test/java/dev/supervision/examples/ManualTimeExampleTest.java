package dev.supervision.examples;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How to test a supervised actor with the test kit: the restart is timed by the actor system's
 * scheduler, so the manual clock drives it exactly, with any jitter, without waiting in real time.
 */
final class ManualTimeExampleTest {

  // #quick-test
  // one ManualTime test kit for the class, shut down once; logs printed for failed tests only
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void aWorkerComesBackExactlyAfterItsBackoff() {
    FlakyDatabase db = new FlakyDatabase();
    BackoffProbe backoff = kit.createProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(5))
            .withListener(backoff.listener());
    ActorRef<Worker.Query> worker = kit.spawn(BackoffSupervisor.wrap(Worker.create(db), policy));
    TestProbe<String> replies = kit.createTestProbe();
    worker.tell(new Worker.Query("q0", replies.ref()));
    replies.expectMessage("result of q0"); // started and connected

    db.setUp(false);
    worker.tell(new Worker.Query("q1", replies.ref())); // fails
    worker.tell(new Worker.Query("q2", replies.ref())); // stashed during the backoff
    backoff.expectRestartScheduled(); // the failure is handled; the event has the drawn delay
    db.setUp(true);
    backoff.advanceToRestart(kit.time()); // exactly that delay, and not 1 ms less
    backoff.expectRestarted();
    replies.expectMessage("result of q2");
  }
  // #quick-test
}
