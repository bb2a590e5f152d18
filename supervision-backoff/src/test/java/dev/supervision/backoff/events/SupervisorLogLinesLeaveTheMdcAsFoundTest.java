package dev.supervision.backoff.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * The supervisor sets the {@code pekkoSource} MDC key for its own log lines only: a value the
 * thread held before is put back, and a key that was absent is removed again. A listener runs right
 * after the failure's log line, on the actor's thread, so it sees what the line left behind.
 */
final class SupervisorLogLinesLeaveTheMdcAsFoundTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** Throws on "fail" after setting the key to {@code before} (or removing it, for null). */
  private static Behavior<String> failingWith(String before) {
    return Behaviors.receiveMessage(
        m -> {
          if (before == null) {
            MDC.remove("pekkoSource");
          } else {
            MDC.put("pekkoSource", before);
          }
          throw new TestChild.Boom("fail");
        });
  }

  /** What {@code pekkoSource} held when the listener saw RestartScheduled (empty for absent). */
  private static Optional<String> keyAfterTheFailureLine(String before) {
    TestProbe<Optional<String>> seen = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(
                event -> {
                  if (event instanceof BackoffEvent.RestartScheduled) {
                    seen.ref().tell(Optional.ofNullable(MDC.get("pekkoSource")));
                  }
                });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(failingWith(before), policy));
    actor.tell("fail");
    Optional<String> after = seen.receiveMessage();
    MDC.remove("pekkoSource"); // the test's own thread is not the actor's; nothing to clean here
    return after;
  }

  @Test
  void aValueTheThreadHeldBeforeTheLineIsPutBack() {
    assertEquals(Optional.of("set-by-the-user"), keyAfterTheFailureLine("set-by-the-user"));
  }

  @Test
  void aKeyThatWasAbsentBeforeTheLineIsRemovedAgain() {
    assertNull(keyAfterTheFailureLine(null).orElse(null));
  }
}
