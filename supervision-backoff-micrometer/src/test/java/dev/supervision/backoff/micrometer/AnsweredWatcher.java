package dev.supervision.backoff.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A budget watcher actor whose status questions the test answers itself, in the order it chooses.
 * An answer is sent to the watcher when the test gives it, so a message the test sends the watcher
 * afterwards is handled after the answer.
 */
final class AnsweredWatcher {

  /** The watcher actor: send it {@code BudgetEvent}s directly. */
  final ActorRef<Object> actor;

  private final BackoffTestKit kit;
  private final List<CompletableFuture<Optional<GateProtocol.Status>>> questions =
      new CopyOnWriteArrayList<>();

  AnsweredWatcher(BackoffTestKit kit, MeterRegistry registry) {
    this.kit = kit;
    BudgetWatcher watcher = new BudgetWatcher(Tags.empty(), ConcurrentHashMap.<Meter>newKeySet());
    actor =
        kit.spawn(
            watcher.behavior(
                registry,
                budget -> {
                  CompletableFuture<Optional<GateProtocol.Status>> answer =
                      new CompletableFuture<>();
                  questions.add(answer);
                  return answer;
                }));
  }

  /** Waits until the watcher has asked {@code n} questions in all. */
  void awaitQuestions(int n) {
    kit.createTestProbe()
        .awaitAssert(
            () -> {
              assertEquals(n, questions.size());
              return null;
            });
  }

  /** Answers the {@code i}-th question (from 1). */
  void answer(int i, GateProtocol.Status status) {
    questions.get(i - 1).complete(Optional.of(status));
  }

  /** Answers the {@code i}-th question (from 1): the budget has no gate on this node now. */
  void answerNoGate(int i) {
    questions.get(i - 1).complete(Optional.empty());
  }

  void stop() {
    kit.testKit().stop(actor);
  }
}
