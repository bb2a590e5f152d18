package dev.supervision.backoff.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.testkit.BackoffTestKit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The budget watcher numbers its status questions: when the answers of two questions in flight come
 * back out of order, the older one does not overwrite what the newer one showed. The watcher's
 * messages are driven directly, and the test answers its questions itself ({@link AnsweredWatcher}),
 * in the order it chooses (under {@code ManualTime} no poll asks anything in between).
 */
final class AnOlderStatusAnswerNeverOverwritesANewerOneTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static GateProtocol.Status coordinatedWithShare(double share) {
    return new GateProtocol.Status(
        "db",
        State.STEADY,
        Double.POSITIVE_INFINITY,
        Double.NaN,
        0,
        Optional.of(new GateProtocol.Coordination(true, share, false, 2, 0)));
  }

  @Test
  void theAnswerToTheLaterQuestionStays_whenTheEarlierOneArrivesAfterIt() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AnsweredWatcher watcher = new AnsweredWatcher(kit, registry);
    ActorRef<Object> actor = watcher.actor;
    BudgetEvent.CoordinationChanged changed =
        new BudgetEvent.CoordinationChanged("db", true, false, 2);
    actor.tell(changed); // question 1
    actor.tell(changed); // question 2
    watcher.awaitQuestions(2);

    watcher.answer(2, coordinatedWithShare(0.25)); // the newer first
    kit.createTestProbe()
        .awaitAssert(
            () -> {
              assertEquals(0.25, share(registry));
              return null;
            });
    watcher.answer(1, coordinatedWithShare(0.75)); // then the older
    // the older answer was sent to the watcher when its question was answered, before this probe:
    // once the probe is counted, the older answer has been handled
    actor.tell(new BudgetEvent.Probe("db", 1));
    kit.createTestProbe()
        .awaitAssert(
            () -> {
              assertEquals(1.0, registry.get(BackoffMetrics.BUDGET_PROBES).counter().count());
              return null;
            });
    assertEquals(0.25, share(registry), "the older answer must not overwrite the newer one");

    actor.tell(changed); // question 3: a later answer is shown again
    watcher.awaitQuestions(3);
    watcher.answer(3, coordinatedWithShare(0.5));
    kit.createTestProbe()
        .awaitAssert(
            () -> {
              assertEquals(0.5, share(registry));
              return null;
            });
    watcher.stop();
  }

  private static double share(SimpleMeterRegistry registry) {
    return registry
        .find(BackoffMetrics.BUDGET_SHARE)
        .tag(BackoffMetrics.BUDGET_TAG, "db")
        .gauges()
        .stream()
        .findFirst()
        .map(g -> g.value())
        .orElse(Double.NaN);
  }
}
