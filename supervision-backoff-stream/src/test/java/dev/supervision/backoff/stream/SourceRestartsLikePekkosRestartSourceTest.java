package dev.supervision.backoff.stream;

import static dev.supervision.backoff.stream.Probes.counting;
import static dev.supervision.backoff.stream.Probes.exact;
import static dev.supervision.backoff.stream.Probes.expectComplete;
import static dev.supervision.backoff.stream.Probes.expectError;
import static dev.supervision.backoff.stream.Probes.expectNext;
import static dev.supervision.backoff.stream.Probes.expectPending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.stream.Probes.Counting;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cases of Pekko's {@code RestartSpec} for {@code RestartSource}, against {@link
 * BackoffSource}, under {@code ManualTime}. Where this module differs on purpose the test says so.
 */
final class SourceRestartsLikePekkosRestartSourceTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static <T> SinkQueueWithCancel<T> run(Source<T, NotUsed> source) {
    return source.runWith(Sink.queue(), kit.system());
  }

  private static Source<String, NotUsed> failingAt(String bad, String... elements) {
    return Source.from(List.of(elements))
        .map(
            e -> {
              if (e.equals(bad)) {
                throw new Boom("failed at " + e);
              }
              return e;
            });
  }

  @Test
  void runsNormally() {
    Counting<String> inner = counting(n -> Source.repeat("a"));
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(exact(), inner));
    for (int i = 0; i < 5; i++) {
      expectNext(out, "a");
    }
    assertEquals(1, inner.made());
    out.cancel();
  }

  @Test
  void restartsOnCompletionAfterItsBackoff() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> Source.from(List.of("a", "b")));
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(exact(probe), inner));
    expectNext(out, "a");
    expectNext(out, "b");
    BackoffEvent.RestartScheduled first = probe.expectRestartScheduled();
    assertEquals(Duration.ofSeconds(1), first.delay());
    assertTrue(first.cause() instanceof InnerStreamFinished, first.toString());
    CompletionStage<Optional<String>> pending = out.pull();
    expectPending(pending); // backing off: no element before the delay
    probe.advanceToRestart(kit.time());
    assertEquals(Optional.of("a"), Probes.await(pending));
    probe.expectRestarted();
    expectNext(out, "b");
    assertEquals(Duration.ofSeconds(2), probe.expectRestartScheduled().delay());
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    assertEquals(3, inner.made());
    out.cancel();
  }

  @Test
  void restartsOnFailure() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> failingAt("c", "a", "b", "c"));
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(exact(probe), inner));
    expectNext(out, "a");
    expectNext(out, "b");
    BackoffEvent.RestartScheduled scheduled = probe.expectRestartScheduled();
    assertTrue(scheduled.cause() instanceof Boom, scheduled.toString());
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    expectNext(out, "b");
    probe.expectRestarted();
    assertEquals(2, probe.expectRestartScheduled().attempt());
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    assertEquals(3, inner.made());
    out.cancel();
  }

  @Test
  void cancelsTheRunningSourceWhenCancelled() {
    CompletableFuture<Done> terminated = new CompletableFuture<>();
    Counting<String> inner =
        counting(
            n ->
                Source.repeat("a")
                    .watchTermination(
                        (mat, done) -> {
                          done.whenComplete((d, e) -> terminated.complete(Done.getInstance()));
                          return mat;
                        }));
    BackoffProbe probe = kit.createProbe();
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(exact(probe), inner));
    expectNext(out, "a");
    out.cancel();
    Probes.await(terminated);
    // a cancel taken for the inner source's completion would schedule a restart and say so, whether
    // before or after the step; a restart after the step would make a second source
    kit.time().timePasses(Duration.ofSeconds(20));
    probe.expectNoEvent(Duration.ofMillis(200));
    assertEquals(1, inner.made());
  }

  @Test
  void doesNotRestartWhenCancelledWhileBackingOff() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> Source.single("a"));
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(exact(probe), inner));
    expectNext(out, "a");
    probe.expectRestartScheduled();
    out.cancel();
    probe.expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    kit.time().timePasses(Duration.ofSeconds(20));
    probe.expectNoEvent(Duration.ofMillis(200));
    assertEquals(1, inner.made());
  }

  @Test
  void onFailuresWithBackoff_completesWhenTheInnerSourceCompletes() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner =
        counting(n -> n == 1 ? failingAt("c", "a", "b", "c") : Source.from(List.of("a", "b", "c")));
    SinkQueueWithCancel<String> out = run(BackoffSource.onFailuresWithBackoff(exact(probe), inner));
    expectNext(out, "a");
    expectNext(out, "b");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    expectNext(out, "b");
    expectNext(out, "c");
    expectComplete(out);
    assertEquals(2, inner.made());
  }

  @Test
  void onFailuresWithBackoff_restartsOnFailure() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> failingAt("c", "a", "b", "c"));
    SinkQueueWithCancel<String> out = run(BackoffSource.onFailuresWithBackoff(exact(probe), inner));
    expectNext(out, "a");
    expectNext(out, "b");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    expectNext(out, "b");
    probe.expectRestarted();
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    assertEquals(3, inner.made());
    out.cancel();
  }

  @Test
  void maxRestartsReachedByCompletions_completesTheStream() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> Source.single("a"));
    SinkQueueWithCancel<String> out =
        run(
            BackoffSource.withBackoff(
                exact().withMaxRestarts(1).withListener(probe.listener()), inner));
    expectNext(out, "a");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    expectComplete(out);
    probe.expectRestarted();
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, probe.expectGaveUp().reason());
    assertEquals(2, inner.made());
  }

  /** As Pekko's: the failure after the last allowed restart fails the outer source with it. */
  @Test
  void maxRestartsReachedByFailures_failsTheStreamWithTheLastFailure() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> failingAt("b", "a", "b"));
    SinkQueueWithCancel<String> out =
        run(
            BackoffSource.withBackoff(
                exact().withMaxRestarts(1).withListener(probe.listener()), inner));
    expectNext(out, "a");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    expectNext(out, "a");
    Throwable failure = expectError(out);
    probe.expectRestarted();
    BackoffEvent.GaveUp gaveUp = probe.expectGaveUp();
    assertSame(gaveUp.cause(), failure);
    assertEquals(1, gaveUp.attempt());
    assertEquals(2, inner.made());
  }

  @Test
  void theInnerSourceGetsTheOuterAttributes() {
    CompletableFuture<Attributes> seen = new CompletableFuture<>();
    BackoffSource.withBackoff(
            exact(),
            () ->
                Source.fromGraph(new AttributesSource().named("inner-name"))
                    .mapMaterializedValue(
                        a -> {
                          seen.complete(a);
                          return NotUsed.getInstance();
                        }))
        .withAttributes(Attributes.name("outer-name").and(Attributes.inputBuffer(3, 3)))
        .runWith(Sink.cancelled(), kit.system());
    Attributes attributes = Probes.await(seen);
    assertEquals("inner-name", attributes.nameOrDefault("none"));
    assertEquals(
        3,
        attributes.getAttribute(Attributes.InputBuffer.class).get().initial(),
        "outer attribute");
  }

  /** Pekko: {@code restartOn} returning false; here a stop rule of the policy. */
  @Test
  void failsTheStreamOnAPermanentFailure() {
    BackoffProbe probe = kit.createProbe();
    Counting<String> inner = counting(n -> failingAt("c", "a", "b", "c"));
    BackoffPolicy policy = exact().withStopOn(Boom.class).withListener(probe.listener());
    SinkQueueWithCancel<String> out = run(BackoffSource.withBackoff(policy, inner));
    expectNext(out, "a");
    expectNext(out, "b");
    assertTrue(expectError(out) instanceof Boom);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, probe.expectGaveUp().reason());
    assertEquals(1, inner.made());
  }

  /** Elements the downstream has not asked for are not pulled from a restarted source. */
  @Test
  void aRestartPullsOnlyWhenDownstreamAsked() {
    BackoffProbe probe = kit.createProbe();
    SinkQueueWithCancel<String> out =
        Source.fromGraph(BackoffSource.withBackoff(exact(probe), () -> Source.single("a")))
            .toMat(Sink.queue(1), Keep.right())
            .run(kit.system());
    expectNext(out, "a");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    expectNext(out, "a");
    out.cancel();
  }
}
