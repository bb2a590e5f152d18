package dev.supervision.backoff.stream;

import static dev.supervision.backoff.stream.Probes.exact;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cases of Pekko's {@code RestartSpec} for {@code RestartSink}, against {@link BackoffSink},
 * under {@code ManualTime}: the inner sink passes elements to a probe up to and including {@code
 * "cancel"}, then cancels.
 */
final class SinkRestartsLikePekkosRestartSinkTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private record Setup(
      AtomicInteger created,
      BoundedSourceQueue<String> source,
      CompletionStage<Done> upstreamDone,
      TestProbe<String> seen,
      BackoffProbe events) {}

  private static Setup setup(BackoffPolicy base) {
    AtomicInteger created = new AtomicInteger();
    TestProbe<String> seen = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Sink<String, NotUsed> sink =
        BackoffSink.withBackoff(
            base.withListener(events.listener()),
            () -> {
              created.incrementAndGet();
              return Flow.of(String.class)
                  .takeWhile(s -> !s.equals("cancel"), true)
                  .to(Sink.foreach(s -> seen.ref().tell(s)));
            });
    Pair<Pair<BoundedSourceQueue<String>, CompletionStage<Done>>, NotUsed> run =
        Source.<String>queue(16)
            .watchTermination(Keep.both())
            .toMat(sink, Keep.both())
            .run(kit.system());
    return new Setup(created, run.first().first(), run.first().second(), seen, events);
  }

  @Test
  void runsNormally() {
    AtomicInteger created = new AtomicInteger();
    CompletableFuture<List<String>> result = new CompletableFuture<>();
    Source.from(List.of("a", "b", "c"))
        .runWith(
            BackoffSink.withBackoff(
                exact(),
                () -> {
                  created.incrementAndGet();
                  return Sink.<String>seq()
                      .mapMaterializedValue(
                          f -> {
                            f.whenComplete((l, e) -> result.complete(l));
                            return NotUsed.getInstance();
                          });
                }),
            kit.system());
    assertEquals(List.of("a", "b", "c"), Probes.await(result));
    assertEquals(1, created.get());
  }

  @Test
  void restartsOnCancellationAfterItsBackoff() {
    Setup s = setup(exact());
    s.source().offer("a");
    s.seen().expectMessage(Probes.WAIT, "a");
    s.source().offer("cancel");
    s.seen().expectMessage(Probes.WAIT, "cancel");
    BackoffEvent.RestartScheduled scheduled = s.events().expectRestartScheduled();
    assertEquals(Duration.ofSeconds(1), scheduled.delay());
    s.source().offer("b");
    s.seen().expectNoMessage(Duration.ofMillis(200)); // waits in the port during the backoff
    s.events().advanceToRestart(kit.time());
    s.seen().expectMessage(Probes.WAIT, "b");
    assertEquals(2, s.created().get());
    s.source().complete();
  }

  @Test
  void doesNotRestartWhenUpstreamCompletesDuringTheBackoff() {
    Setup s = setup(exact());
    s.source().offer("cancel");
    s.seen().expectMessage(Probes.WAIT, "cancel");
    s.events().expectRestartScheduled();
    s.source().complete();
    s.events().expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    kit.time().timePasses(Duration.ofSeconds(5));
    s.events().expectNoEvent(Duration.ofMillis(200));
    assertEquals(1, s.created().get());
  }

  @Test
  void cancelsUpstreamWhenMaxRestartsIsReached() {
    Setup s = setup(exact().withMaxRestarts(1));
    s.source().offer("cancel");
    s.seen().expectMessage(Probes.WAIT, "cancel");
    s.events().expectRestartScheduled();
    s.events().advanceToRestart(kit.time());
    s.events().expectRestarted();
    s.source().offer("cancel");
    s.seen().expectMessage(Probes.WAIT, "cancel");
    Probes.await(s.upstreamDone());
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, s.events().expectGaveUp().reason());
    assertEquals(2, s.created().get());
  }

  /** Pekko: {@code restartOn} returning false; here a stop rule of the policy. */
  @Test
  void cancelsUpstreamWithThePermanentFailure() {
    AtomicInteger created = new AtomicInteger();
    Pair<BoundedSourceQueue<String>, CompletionStage<Done>> run =
        Source.<String>queue(16)
            .watchTermination(Keep.both())
            .to(
                BackoffSink.withBackoff(
                    exact().withStopOn(Boom.class),
                    () -> {
                      created.incrementAndGet();
                      return Sink.<String>foreach(
                          s -> {
                            if (s.equals("c")) {
                              throw new Boom("failed");
                            }
                          });
                    }))
            .run(kit.system());
    run.first().offer("a");
    run.first().offer("b");
    run.first().offer("c");
    Throwable cause = Probes.failureOf(run.second());
    assertTrue(cause instanceof Boom, String.valueOf(cause));
    assertEquals(1, created.get());
  }

  /** A sink that fails (not permanently) is restarted like one that cancels. */
  @Test
  void restartsAFailedSink() {
    BackoffProbe events = kit.createProbe();
    AtomicInteger created = new AtomicInteger();
    TestProbe<String> seen = kit.createTestProbe();
    BoundedSourceQueue<String> source =
        Source.<String>queue(16)
            .to(
                BackoffSink.withBackoff(
                    exact().withListener(events.listener()),
                    () -> {
                      created.incrementAndGet();
                      return Sink.<String>foreach(
                          s -> {
                            if (s.equals("c")) {
                              throw new Boom("failed");
                            }
                            seen.ref().tell(s);
                          });
                    }))
            .run(kit.system());
    source.offer("c");
    assertTrue(events.expectRestartScheduled().cause() instanceof Boom);
    events.advanceToRestart(kit.time());
    source.offer("d");
    seen.expectMessage(Probes.WAIT, "d");
    assertEquals(2, created.get());
    source.complete();
  }
}
