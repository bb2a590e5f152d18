package dev.supervision.backoff.stash;

import dev.supervision.backoff.BackoffHandler;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** The fixture of the tests of the handler's countdown: a policy, a child, a telling handler. */
final class Countdowns {

  private Countdowns() {}

  /** Tells {@code seen} the time left it is given for each message, and answers it. */
  static BackoffHandler telling(TestProbe<Duration> seen) {
    return (message, untilRestart) -> {
      seen.ref().tell(untilRestart);
      return true;
    };
  }

  /** Unjittered delays from {@code delay}, no reset within the tests, events to {@code events}. */
  static BackoffPolicy policy(Duration delay, BackoffProbe events) {
    return BackoffPolicy.exponential(delay, Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.listener());
  }

  /** Throws on "fail"; ignores anything else. */
  static Behavior<String> child() {
    return Behaviors.receiveMessage(
        m -> {
          if (m.equals("fail")) {
            throw new IllegalStateException("fail");
          }
          return Behaviors.same();
        });
  }

  /** The time left that the handler is told for the next message. */
  static Duration ask(ActorRef<String> actor, TestProbe<Duration> seen) {
    actor.tell("q");
    return seen.receiveMessage();
  }
}
