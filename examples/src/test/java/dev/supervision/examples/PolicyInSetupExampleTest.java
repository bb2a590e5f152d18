package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs the policy-in-setup example: the children it supervises are restarted by its policy. */
final class PolicyInSetupExampleTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void thePolicyGrowsWithThePoolButStaysBounded() {
    assertEquals(Duration.ofSeconds(5), PolicyInSetupExample.policyFor(10).getMaxBackoff());
    assertEquals(Duration.ofSeconds(20), PolicyInSetupExample.policyFor(2_000).getMaxBackoff());
    assertEquals(Duration.ofSeconds(60), PolicyInSetupExample.policyFor(1_000_000).getMaxBackoff());
  }

  @Test
  void aChildThatFailsIsRestartedWithinTheCap() {
    FlakyDatabase db = new FlakyDatabase();
    ActorRef<PolicyInSetupExample.Command> parent = kit.spawn(PolicyInSetupExample.create(db, 3));
    TestProbe<String> replies = kit.createTestProbe();
    parent.tell(new PolicyInSetupExample.Forward(1, new Worker.Query("before", replies.ref())));
    replies.expectMessage("result of before");
    // every worker connects in its setup: wait for all three connects (and the query) before
    // taking the database down, or a late connect of another worker is counted as the failing call
    replies.awaitAssert(
        () -> {
          assertEquals(3 + 1, db.calls());
          return null;
        });

    db.setUp(false);
    // the supervisor writes its "restarting in" line after it has put the restart on the clock:
    // once the line is seen, time may pass (before it, a step could come ahead of the timer)
    LoggingTestKit.warn("restarting in")
        .expect(
            kit.system(),
            () -> {
              parent.tell(
                  new PolicyInSetupExample.Forward(1, new Worker.Query("fails", replies.ref())));
              parent.tell(
                  new PolicyInSetupExample.Forward(1, new Worker.Query("kept", replies.ref())));
              return null;
            });
    db.setUp(true);
    // full jitter: the first delay is somewhere in [0, 100 ms); after 100 ms it has surely passed
    kit.time().timePasses(Duration.ofMillis(100));
    replies.expectMessage("result of kept");
  }
}
