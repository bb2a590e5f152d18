package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.stream.internal.StreamNames;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every restart setting of the policy applies to a stream as it does to an actor: the delays of
 * its schedule, the reset after {@code resetAfter} of running (apart from the restart limit), the
 * failure classification on the cause chain, {@link RetryAfter} hints.
 */
final class StreamsHonourThePolicyTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static SinkQueueWithCancel<String> run(
      String name, BackoffPolicy policy, Controlled inner) {
    return BackoffSource.withBackoff(name, policy, inner::create)
        .runWith(Sink.queue(), kit.system());
  }

  /** Fails the running inner source; returns the restart the stream scheduled. */
  private static BackoffEvent.RestartScheduled failAndExpect(
      Controlled inner, BackoffProbe probe, Throwable failure) {
    inner.fail(failure);
    return probe.expectRestartScheduled();
  }

  @Test
  void aStreamDrawsTheDelaysOfThePolicysScheduleSeededWithItsName() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(8))
            .withRandomSeed(42)
            .withLoggingEnabled(false);
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("orders", policy.withListener(probe.listener()), inner);
    List<Duration> drawn = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      drawn.add(failAndExpect(inner, probe, new Boom("down")).delay());
      probe.advanceToRestart(kit.time());
      probe.expectRestarted();
    }
    List<Duration> expected =
        policy.delays(new SplittableRandom(42 ^ StreamNames.hash("orders"))).limit(5).toList();
    assertEquals(expected, drawn);
    drawn.forEach(d -> assertTrue(d.compareTo(Duration.ofSeconds(8)) <= 0, "capped: " + d));
    out.cancel();
  }

  /**
   * Pekko resets the count once {@code maxRestartsWithin} (by default {@code minBackoff}) has
   * passed since the last start, so a stream that runs longer than that before failing always
   * restarts after {@code minBackoff}. Here the backoff grows until the stream has run {@code
   * resetAfter} without failing.
   */
  @Test
  void theBackoffGrowsForAStreamThatRunsLongerThanMinBackoffButShorterThanResetAfter() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact().withResetAfter(Duration.ofSeconds(30)).withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("grows", policy, inner);
    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      delays.add(failAndExpect(inner, probe, new Boom("down")).delay());
      probe.advanceToRestart(kit.time());
      probe.expectRestarted();
      kit.time().timePasses(Duration.ofSeconds(5)); // 5 x minBackoff of running
    }
    delays.add(failAndExpect(inner, probe, new Boom("down")).delay());
    assertEquals(
        List.of(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8)),
        delays);
    out.cancel();
  }

  @Test
  void aStreamThatRunsResetAfterWithoutFailingStartsAgainAtTheFirstDelay() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact().withResetAfter(Duration.ofSeconds(3)).withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("resets", policy, inner);
    failAndExpect(inner, probe, new Boom("down"));
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    assertEquals(2, failAndExpect(inner, probe, new Boom("down")).attempt());
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    kit.time().timePasses(Duration.ofSeconds(3));
    assertEquals(2, probe.expectReset().attempt());
    BackoffEvent.RestartScheduled again = failAndExpect(inner, probe, new Boom("down"));
    assertEquals(1, again.attempt());
    assertEquals(Duration.ofSeconds(1), again.delay());
    out.cancel();
  }

  /** The restart limit counts restarts between resets, whatever the reset window is. */
  @Test
  void maxRestartsCountsRestartsBetweenResets() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact()
            .withMaxRestarts(2)
            .withResetAfter(Duration.ofSeconds(3))
            .withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("limited", policy, inner);
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 2; i++) {
        failAndExpect(inner, probe, new Boom("down"));
        probe.advanceToRestart(kit.time());
        probe.expectRestarted();
      }
      if (round == 0) {
        kit.time().timePasses(Duration.ofSeconds(3));
        probe.expectReset();
      }
    }
    Boom last = new Boom("the third without a reset");
    inner.fail(last);
    BackoffEvent.GaveUp gaveUp = probe.expectGaveUp();
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, gaveUp.reason());
    assertEquals(last, Probes.expectError(out));
  }

  @Test
  void restartOnAndStopOnLookAtTheCauseChain() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact()
            .withRestartOn(IOException.class)
            .withStopOn(IllegalStateException.class)
            .withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("classified", policy, inner);
    failAndExpect(inner, probe, new UncheckedIOException(new IOException("transient")));
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    RuntimeException permanent = new RuntimeException(new IllegalStateException("bad config"));
    inner.fail(permanent);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, probe.expectGaveUp().reason());
    assertEquals(permanent, Probes.expectError(out));
  }

  @Test
  void aFailureOutsideRestartOnFailsTheStream() {
    BackoffProbe probe = kit.createProbe();
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out =
        run(
            "only-io",
            Probes.exact().withRestartOn(IOException.class).withListener(probe.listener()),
            inner);
    inner.fail(new Boom("not transient"));
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, probe.expectGaveUp().reason());
    assertTrue(Probes.expectError(out) instanceof Boom);
  }

  /** A failure that asks for a pause. */
  static final class TooManyRequests extends RuntimeException implements RetryAfter {
    private static final long serialVersionUID = 1L;
    private final Duration retryAfter;

    TooManyRequests(Duration retryAfter) {
      super("429", null, false, false);
      this.retryAfter = retryAfter;
    }

    @Override
    public Duration retryAfter() {
      return retryAfter;
    }
  }

  @Test
  void aRetryAfterHintInTheCauseChainLengthensTheDelayUpToMaxRetryAfter() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact().withMaxRetryAfter(Duration.ofSeconds(60)).withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run("hinted", policy, inner);
    BackoffEvent.RestartScheduled hinted =
        failAndExpect(
            inner, probe, new RuntimeException(new TooManyRequests(Duration.ofSeconds(30))));
    assertEquals(Duration.ofSeconds(30), hinted.delay(), "above maxBackoff, as the hint asks");
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    BackoffEvent.RestartScheduled clamped =
        failAndExpect(inner, probe, new TooManyRequests(Duration.ofHours(1)));
    assertEquals(Duration.ofSeconds(60), clamped.delay(), "clamped to maxRetryAfter");
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    BackoffEvent.RestartScheduled shorter =
        failAndExpect(inner, probe, new TooManyRequests(Duration.ofMillis(1)));
    assertEquals(
        Duration.ofSeconds(4), shorter.delay(), "a shorter hint leaves the policy's delay");
    out.cancel();
  }

  /**
   * A stream draws what an actor of the same policy draws: with one seed, a stream named like an
   * actor's path (without the address) gets exactly that actor's delays.
   */
  @Test
  void aStreamNamedLikeAnActorsPathDrawsThatActorsDelays() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(8))
            .withRandomSeed(7)
            .withResetAfter(Duration.ofMinutes(10))
            .withLoggingEnabled(false)
            .withListener(probe.listener());
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.<String>receiveMessage(
                    m -> {
                      throw new Boom(m);
                    }),
                policy),
            "twin");
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out = run(actor.path().toStringWithoutAddress(), policy, inner);
    List<Duration> ofActor = new ArrayList<>();
    List<Duration> ofStream = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      actor.tell("fail");
      ofActor.add(probe.expectRestartScheduled(actor).delay());
      probe.advanceToRestart(kit.time());
      probe.expectRestarted(actor);
      inner.fail(new Boom("down"));
      BackoffEvent.RestartScheduled scheduled = probe.expectRestartScheduled();
      ofStream.add(scheduled.delay());
      probe.advanceToRestart(kit.time());
      probe.expectRestarted(scheduled.actor());
    }
    assertEquals(ofActor, ofStream);
    out.cancel();
    kit.testKit().stop(actor);
  }
}
