package dev.supervision.backoff.stream;

import static dev.supervision.backoff.stream.Probes.exact;
import static dev.supervision.backoff.stream.Probes.expectComplete;
import static dev.supervision.backoff.stream.Probes.expectError;
import static dev.supervision.backoff.stream.Probes.expectNext;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.javadsl.BroadcastHub;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cases of Pekko's {@code RestartSpec} for {@code RestartFlow}, against {@link BackoffFlow},
 * under {@code ManualTime}, with the same inner flow: its input side goes to a probe ({@code
 * "cancel"} cancels it, {@code "in error"} fails it), its output side comes from a hub fed by the
 * test ({@code "complete"} completes it, {@code "error"} fails it).
 */
final class FlowRestartsLikePekkosRestartFlowTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  /** What one test wires up. */
  private record Setup(
      AtomicInteger created,
      BoundedSourceQueue<String> source,
      TestProbe<String> flowIn,
      BoundedSourceQueue<String> flowOut,
      SinkQueueWithCancel<String> sink,
      BackoffProbe events) {}

  private static Setup setup(BackoffPolicy base, boolean onlyOnFailures) {
    AtomicInteger created = new AtomicInteger();
    TestProbe<String> flowIn = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    Pair<BoundedSourceQueue<String>, Source<String, NotUsed>> hub =
        Source.<String>queue(16)
            .toMat(BroadcastHub.of(String.class, 16), Keep.both())
            .run(kit.system());
    Source<String, NotUsed> flowOutSource = hub.second();
    BackoffPolicy policy = base.withListener(events.listener());
    org.apache.pekko.japi.function.Creator<Flow<String, String, ?>> factory =
        () -> {
          created.incrementAndGet();
          Sink<String, NotUsed> inSide =
              Flow.of(String.class)
                  .takeWhile(s -> !s.equals("cancel"))
                  .map(
                      s -> {
                        if (s.equals("in error")) {
                          throw new Boom("in error");
                        }
                        return s;
                      })
                  .toMat(Sink.foreach(s -> flowIn.ref().tell(s)), Keep.right())
                  .mapMaterializedValue(
                      done -> {
                        done.whenComplete(
                            (d, e) -> flowIn.ref().tell(e == null ? "in complete" : "in error"));
                        return NotUsed.getInstance();
                      });
          Source<String, NotUsed> outSide =
              flowOutSource
                  .takeWhile(s -> !s.equals("complete"))
                  .map(
                      s -> {
                        if (s.equals("error")) {
                          throw new Boom("error");
                        }
                        return s;
                      })
                  .watchTermination(
                      (mat, done) -> {
                        done.thenRun(
                            () -> flowIn.ref().tell("out complete")); // on success only, as Pekko's
                        return mat;
                      });
          return Flow.fromSinkAndSource(inSide, outSide);
        };
    Flow<String, String, NotUsed> flow =
        onlyOnFailures
            ? BackoffFlow.onFailuresWithBackoff(policy, factory)
            : BackoffFlow.withBackoff(policy, factory);
    Pair<BoundedSourceQueue<String>, SinkQueueWithCancel<String>> ends =
        Source.<String>queue(16).via(flow).toMat(Sink.queue(), Keep.both()).run(kit.system());
    return new Setup(created, ends.first(), flowIn, hub.first(), ends.second(), events);
  }

  private static void expectAllOf(TestProbe<String> probe, String... messages) {
    Set<String> got =
        IntStream.range(0, messages.length)
            .mapToObj(i -> probe.receiveMessage(Probes.WAIT))
            .collect(Collectors.toSet());
    assertEquals(Set.of(messages), got);
  }

  /** Sends "a" in and "b" out, which every case starts with. */
  private static void roundTrip(Setup s) {
    s.source().offer("a");
    s.flowIn().expectMessage(Probes.WAIT, "a");
    s.flowOut().offer("b");
    expectNext(s.sink(), "b");
  }

  /** The second inner flow works: "c" in, "d" out. */
  private static void secondFlowWorks(Setup s) {
    s.source().offer("c");
    s.flowIn().expectMessage(Probes.WAIT, "c");
    s.flowOut().offer("d");
    expectNext(s.sink(), "d");
    assertEquals(2, s.created().get());
  }

  @Test
  void runsNormally() {
    AtomicInteger created = new AtomicInteger();
    Pair<BoundedSourceQueue<String>, SinkQueueWithCancel<String>> ends =
        Source.<String>queue(16)
            .via(
                BackoffFlow.withBackoff(
                    exact(),
                    () -> {
                      created.incrementAndGet();
                      return Flow.of(String.class);
                    }))
            .toMat(Sink.queue(), Keep.both())
            .run(kit.system());
    ends.first().offer("a");
    expectNext(ends.second(), "a");
    ends.first().offer("b");
    expectNext(ends.second(), "b");
    ends.first().complete();
    expectComplete(ends.second());
    assertEquals(1, created.get());
  }

  @Test
  void restartsOnCancellation() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.source().offer("cancel");
    expectAllOf(s.flowIn(), "in complete", "out complete");
    BackoffEvent.RestartScheduled scheduled = s.events().expectRestartScheduled();
    assertTrue(((InnerStreamFinished) scheduled.cause()).cancelled(), scheduled.toString());
    s.events().advanceToRestart(kit.time());
    secondFlowWorks(s);
  }

  @Test
  void restartsOnCompletion() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.flowOut().offer("complete");
    expectAllOf(s.flowIn(), "in complete", "out complete");
    BackoffEvent.RestartScheduled scheduled = s.events().expectRestartScheduled();
    assertTrue(!((InnerStreamFinished) scheduled.cause()).cancelled(), scheduled.toString());
    s.events().advanceToRestart(kit.time());
    secondFlowWorks(s);
  }

  @Test
  void restartsOnFailure() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.flowOut().offer("error");
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    assertTrue(s.events().expectRestartScheduled().cause() instanceof Boom);
    s.events().advanceToRestart(kit.time());
    secondFlowWorks(s);
  }

  /** An element that arrives during the backoff is kept for the next inner flow. */
  @Test
  void anElementSentDuringTheBackoffGoesToTheNextFlow() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.source().offer("cancel");
    expectAllOf(s.flowIn(), "in complete", "out complete");
    s.events().expectRestartScheduled();
    s.source().offer("during");
    s.flowIn().expectNoMessage(Duration.ofMillis(200));
    s.events().advanceToRestart(kit.time());
    s.flowIn().expectMessage(Probes.WAIT, "during");
  }

  @Test
  void keepsTheOutputRunningAfterTheInputCompleted() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.source().complete();
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.flowOut().offer("c");
    expectNext(s.sink(), "c");
    s.flowOut().offer("d");
    expectNext(s.sink(), "d");
    s.flowOut().complete();
    s.flowIn().expectMessage(Probes.WAIT, "out complete");
    expectComplete(s.sink());
    assertEquals(1, s.created().get());
  }

  @Test
  void keepsTheInputRunningAfterTheOutputWasCancelled() {
    Setup s = setup(exact(), false);
    roundTrip(s);
    s.sink().cancel();
    s.flowIn().expectMessage(Probes.WAIT, "out complete");
    s.source().offer("c");
    s.flowIn().expectMessage(Probes.WAIT, "c");
    s.source().offer("cancel");
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.events().expectNoEvent(Duration.ofMillis(200));
    assertEquals(1, s.created().get());
  }

  /**
   * Pekko completes only the outer output here and leaves the inner flow's input side running on
   * the outer upstream; this library ends the whole flow once it gives up: the inner input side is
   * completed too.
   */
  @Test
  void doesNotRestartOnCompletionWhenMaxRestartsIsReached() {
    Setup s = setup(exact().withMaxRestarts(1), false);
    s.flowOut().offer("complete");
    expectAllOf(s.flowIn(), "in complete", "out complete");
    s.events().expectRestartScheduled();
    s.events().advanceToRestart(kit.time());
    s.events().expectRestarted();
    s.flowOut().offer("complete");
    expectAllOf(s.flowIn(), "in complete", "out complete");
    expectComplete(s.sink());
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, s.events().expectGaveUp().reason());
    assertEquals(2, s.created().get());
  }

  @Test
  void onFailuresWithBackoff_stopsOnCancellation() {
    Setup s = setup(exact(), true);
    roundTrip(s);
    s.source().offer("cancel");
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.events().expectNoEvent(Duration.ofMillis(200));
    assertEquals(1, s.created().get());
  }

  @Test
  void onFailuresWithBackoff_stopsOnCompletion() {
    Setup s = setup(exact(), true);
    roundTrip(s);
    s.flowOut().offer("complete");
    expectComplete(s.sink());
    assertEquals(1, s.created().get());
  }

  @Test
  void onFailuresWithBackoff_restartsOnFailure() {
    Setup s = setup(exact(), true);
    roundTrip(s);
    s.flowOut().offer("error");
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.events().expectRestartScheduled();
    s.events().advanceToRestart(kit.time());
    secondFlowWorks(s);
  }

  /**
   * Pekko's case adds a 100 ms {@code Delay} attribute so that a failure that cancels the input is
   * not taken for a cancellation; here a cancellation whose cause is a failure is a failure, so no
   * delay is needed. The element that failed is lost.
   */
  @Test
  void onFailuresWithBackoff_aFailingFlowRestartsTheConfiguredNumberOfTimes() {
    BackoffProbe events = kit.createProbe();
    AtomicInteger created = new AtomicInteger();
    Flow<Integer, Integer, NotUsed> failsSomeTimes =
        Flow.of(Integer.class)
            .map(
                i -> {
                  if (i % 3 == 0) {
                    throw new Boom("fail " + i);
                  }
                  return i;
                });
    CompletableFuture<List<Integer>> result =
        Source.range(1, 7)
            .via(
                BackoffFlow.onFailuresWithBackoff(
                    exact().withMaxRestarts(2).withListener(events.listener()),
                    () -> {
                      created.incrementAndGet();
                      return failsSomeTimes;
                    }))
            .runWith(Sink.seq(), kit.system())
            .toCompletableFuture();
    events.expectRestartScheduled();
    events.advanceToRestart(kit.time());
    events.expectRestarted();
    events.expectRestartScheduled();
    events.advanceToRestart(kit.time());
    assertEquals(List.of(1, 2, 4, 5, 7), Probes.await(result));
    assertEquals(3, created.get());
  }

  /** Pekko: {@code restartOn} returning false; here a stop rule of the policy. */
  @Test
  void failsTheStreamOnAPermanentFailure() {
    AtomicInteger created = new AtomicInteger();
    SinkQueueWithCancel<String> out =
        Source.from(List.of("a", "b", "c", "d"))
            .via(
                BackoffFlow.onFailuresWithBackoff(
                    exact().withStopOn(Boom.class),
                    () -> {
                      created.incrementAndGet();
                      return Flow.of(String.class)
                          .map(
                              s -> {
                                if (s.equals("c")) {
                                  throw new Boom("failed");
                                }
                                return s;
                              });
                    }))
            .runWith(Sink.queue(), kit.system());
    expectNext(out, "a");
    expectNext(out, "b");
    assertTrue(expectError(out) instanceof Boom);
    assertEquals(1, created.get());
  }

  /** When the outer upstream fails, the inner flow gets the failure and the outer fails with it. */
  @Test
  void anUpstreamFailureFailsTheInnerFlowAndTheOuterOne() {
    CompletableFuture<Throwable> innerSaw = new CompletableFuture<>();
    Pair<BoundedSourceQueue<String>, SinkQueueWithCancel<String>> ends =
        Source.<String>queue(16)
            .via(
                BackoffFlow.withBackoff(
                    exact(),
                    () ->
                        Flow.of(String.class)
                            .watchTermination(
                                (mat, done) -> {
                                  done.whenComplete((d, e) -> innerSaw.complete(e));
                                  return mat;
                                })))
            .toMat(Sink.queue(), Keep.both())
            .run(kit.system());
    ends.first().offer("a");
    expectNext(ends.second(), "a");
    ends.first().fail(new Boom("upstream"));
    assertEquals("upstream", Probes.await(innerSaw).getMessage());
    assertEquals("upstream", expectError(ends.second()).getMessage());
  }

  /**
   * After a plain cancellation of its input has cancelled the outer upstream, a flow restarted for
   * a failure of its output gets a completed input at once.
   */
  @Test
  void onFailuresWithBackoff_aFlowRestartedAfterUpstreamWasCancelledSeesItsInputComplete() {
    Setup s = setup(exact(), true);
    roundTrip(s);
    s.source().offer("cancel");
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.flowOut().offer("error");
    s.events().expectRestartScheduled();
    s.events().advanceToRestart(kit.time());
    s.events().expectRestarted();
    s.flowIn().expectMessage(Probes.WAIT, "in complete");
    s.flowOut().offer("after");
    expectNext(s.sink(), "after");
  }
}
