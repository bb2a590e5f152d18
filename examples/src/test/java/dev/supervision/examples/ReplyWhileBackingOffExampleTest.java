package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.examples.ReplyWhileBackingOffExample.Command;
import dev.supervision.examples.ReplyWhileBackingOffExample.Lookup;
import dev.supervision.examples.ReplyWhileBackingOffExample.Reply;
import dev.supervision.examples.ReplyWhileBackingOffExample.Result;
import dev.supervision.examples.ReplyWhileBackingOffExample.Store;
import dev.supervision.examples.ReplyWhileBackingOffExample.Unavailable;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs the reply-while-backing-off example: lookups are answered during the backoff. */
final class ReplyWhileBackingOffExampleTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void lookupsDuringTheBackoffAreAnsweredWithTheTimeUntilTheRestartStoresWaitForIt() {
    FlakyDatabase db = new FlakyDatabase();
    BackoffProbe backoff = kit.createProbe();
    ActorRef<Command> service =
        kit.spawn(
            ReplyWhileBackingOffExample.create(
                db,
                ReplyWhileBackingOffExample.policy()
                    .withJitter(Jitter.none())
                    .withListener(backoff.listener())));
    TestProbe<Reply> replies = kit.createTestProbe();
    service.tell(new Lookup("a", replies.ref()));
    replies.expectMessage(new Result("result of a"));

    db.setUp(false);
    service.tell(new Lookup("b", replies.ref())); // fails: the backoff starts
    assertEquals(Duration.ofMillis(200), backoff.expectRestartScheduled().delay());
    service.tell(new Lookup("c", replies.ref()));
    replies.expectMessage(new Unavailable(Duration.ofMillis(200))); // at once, not after 200 ms
    service.tell(new Store("d", replies.ref())); // kept for the restart
    db.setUp(true);
    backoff.advanceToRestart(kit.time());
    backoff.expectRestarted();
    replies.expectMessage(new Result("result of store d"));
  }
}
