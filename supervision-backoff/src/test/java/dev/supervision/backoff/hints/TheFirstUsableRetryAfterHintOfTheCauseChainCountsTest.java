package dev.supervision.backoff.hints;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervisor walks the failure's cause chain and takes the first hint that is usable: a null,
 * zero or negative hint is skipped, and the search goes on to the causes below it. The delay is the
 * one reported in {@code RestartScheduled} (nothing needs to fire, so the clock never moves).
 */
final class TheFirstUsableRetryAfterHintOfTheCauseChainCountsTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** A failure with a hint and a cause. */
  static final class Hinted extends RuntimeException implements RetryAfter {
    private final Duration hint;

    Hinted(Duration hint, Throwable cause) {
      super("retry after " + hint, cause, false, false);
      this.hint = hint;
    }

    @Override
    public Duration retryAfter() {
      return hint;
    }
  }

  /** The delay the supervisor schedules for the first failure, which throws {@code failure}. */
  private static Duration delayFor(RuntimeException failure) {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withMaxRetryAfter(Duration.ofSeconds(10))
            .withListener(events.ref()::tell);
    Behavior<String> child =
        Behaviors.receiveMessage(
            m -> {
              throw failure;
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    actor.tell("fail");
    BackoffEvent.RestartScheduled scheduled =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.testKit().stop(actor);
    return scheduled.delay();
  }

  private static RuntimeException above(Duration outerHint, Duration innerHint) {
    return new Hinted(outerHint, new IllegalStateException("wrapped", new Hinted(innerHint, null)));
  }

  @Test
  void aZeroHintIsSkippedAndAHintBelowItCounts() {
    assertEquals(Duration.ofSeconds(3), delayFor(above(Duration.ZERO, Duration.ofSeconds(3))));
  }

  @Test
  void aNegativeHintIsSkippedAndAHintBelowItCounts() {
    assertEquals(
        Duration.ofSeconds(3), delayFor(above(Duration.ofSeconds(-5), Duration.ofSeconds(3))));
  }

  @Test
  void aNullHintIsSkippedAndAHintBelowItCounts() {
    assertEquals(Duration.ofSeconds(3), delayFor(above(null, Duration.ofSeconds(3))));
  }

  @Test
  void theFirstUsableHintWinsOverTheOnesBelowIt() {
    assertEquals(
        Duration.ofSeconds(2), delayFor(above(Duration.ofSeconds(2), Duration.ofSeconds(7))));
  }

  @Test
  void aHintOfExactlyMaxRetryAfterIsKeptAndOneAboveIsCutToIt() {
    assertEquals(Duration.ofSeconds(10), delayFor(new Hinted(Duration.ofSeconds(10), null)));
    assertEquals(Duration.ofSeconds(10), delayFor(new Hinted(Duration.ofDays(400_000), null)));
  }

  @Test
  void aHintShorterThanThePolicysDelayLeavesThePolicysDelay() {
    assertEquals(Duration.ofMillis(100), delayFor(new Hinted(Duration.ofMillis(40), null)));
  }
}
