package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.reliability.Generators.Spec;
import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A {@link RetryAfter} hint may lengthen a delay beyond the cap, but never beyond {@code
 * maxRetryAfter}; without a (valid) hint the cap holds. Checked on real actors: the delay is the one
 * the supervisor reports in {@link BackoffEvent.RestartScheduled} (ManualTime, so nothing fires).
 */
final class RetryAfterHintPropertyTest {

  // Not BackoffTestKit: jqwik runs no JUnit Jupiter extensions (its beforeAll/afterAll would never
  // be
  // called, and the system never shut down), hence jqwik's own container hooks.
  // Created in @BeforeContainer, not in a static initializer: a runner that runs the class again in
  // the
  // same JVM (PIT does, once per mutant) must get a live system, not the one @AfterContainer shut
  // down.
  static ActorTestKit testKit;

  @BeforeContainer
  static void start() {
    testKit = ActorTestKit.create(ManualTime.config());
  }

  @AfterContainer
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  /** A failure carrying a hint, possibly wrapped in causes. */
  static final class Hinted extends RuntimeException implements RetryAfter {
    private final Duration hint;

    Hinted(Duration hint) {
      super("retry after " + hint, null, false, false);
      this.hint = hint;
    }

    @Override
    public Duration retryAfter() {
      return hint;
    }
  }

  @Provide
  Arbitrary<Spec> specs() {
    return Generators.specs();
  }

  /** null, zero, negative, 1 ns .. 180 days, beyond, and the largest Duration. */
  @Provide
  Arbitrary<Duration> hints() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just((Duration) null)),
        net.jqwik.api.Tuple.of(
            1,
            Arbitraries.of(
                Duration.ZERO,
                Duration.ofNanos(-1),
                Duration.ofDays(-3),
                Duration.ofSeconds(Long.MAX_VALUE, 999_999_999))),
        net.jqwik.api.Tuple.of(
            8,
            Arbitraries.longs().between(1, Duration.ofDays(400).toNanos()).map(Duration::ofNanos)));
  }

  @Provide
  Arbitrary<Long> maxRetryAfters() {
    return Generators.durationsNanos();
  }

  @Provide
  Arbitrary<Integer> wrapDepths() {
    return Arbitraries.integers().between(0, 3);
  }

  // No shrinking: a try on real actors that fails may wait out the probe's 3 s timeout, and
  // shrinking would repeat that wait for every candidate (minutes for one broken mutant, which
  // a mutation run then counts as a time-out instead of a failure). The failing sample is
  // reported as it is.
  @Property(tries = 200, shrinking = ShrinkingMode.OFF)
  void hintRaisesTheDelayButNeverAboveMaxRetryAfter(
      @ForAll("specs") Spec spec,
      @ForAll("hints") Duration hint,
      @ForAll("maxRetryAfters") long maxRetryAfterNanos,
      @ForAll("wrapDepths") int depth) {
    Duration maxRetryAfter = Duration.ofNanos(maxRetryAfterNanos);
    TestProbe<BackoffEvent> events = testKit.createTestProbe();
    BackoffPolicy policy =
        spec.policy()
            .withMaxRetryAfter(maxRetryAfter)
            .withLoggingEnabled(false)
            .withListener(events.ref()::tell);
    RuntimeException failure = new Hinted(hint);
    for (int i = 0; i < depth; i++) {
      failure = new IllegalStateException("wrapper " + i, failure);
    }
    RuntimeException thrown = failure;
    ActorRef<String> actor =
        testKit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.receiveMessage(
                    (String m) -> {
                      throw thrown;
                    }),
                policy));
    actor.tell("fail");
    BackoffEvent.RestartScheduled scheduled =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    testKit.stop(actor);
    Duration delay = scheduled.delay();

    assertTrue(!delay.isNegative(), "negative delay " + delay);
    boolean valid = hint != null && !hint.isNegative() && !hint.isZero();
    Duration max = spec.policy().getMaxBackoff();
    if (!valid) {
      assertTrue(delay.compareTo(max) <= 0, "no hint, yet above the cap: " + delay);
      if (spec.jitter() == Jitter.none()) {
        assertEquals(spec.policy().getMinBackoff(), delay);
      }
      return;
    }
    Duration granted = hint.compareTo(maxRetryAfter) < 0 ? hint : maxRetryAfter;
    assertTrue(
        delay.compareTo(granted) >= 0,
        "delay " + delay + " shorter than the granted hint " + granted);
    Duration ceiling = granted.compareTo(max) > 0 ? granted : max;
    assertTrue(
        delay.compareTo(ceiling) <= 0,
        "delay "
            + delay
            + " above both the cap "
            + max
            + " and maxRetryAfter-limited hint "
            + granted);
    if (spec.jitter() == Jitter.none()) {
      Duration min = spec.policy().getMinBackoff();
      assertEquals(
          granted.compareTo(min) > 0 ? granted : min,
          delay,
          "max(policy delay, min(hint, maxRetryAfter))");
    }
  }
}
