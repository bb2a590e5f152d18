package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/** Bad arguments fail where the stage is built, naming the parameter; a bad factory fails later. */
final class BadInputFailsAtConstructionTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static final BackoffPolicy POLICY = Probes.exact();
  private static final Creator<Source<String, ?>> SOURCE = () -> Source.single("a");

  private static void rejects(Class<? extends Throwable> type, String message, Executable call) {
    assertEquals(message, assertThrows(type, call).getMessage());
  }

  @Test
  void nullArgumentsAreNamed() {
    rejects(
        NullPointerException.class,
        "policy must not be null",
        () -> BackoffSource.withBackoff(null, SOURCE));
    rejects(
        NullPointerException.class,
        "factory must not be null",
        () -> BackoffSource.withBackoff(POLICY, null));
    rejects(
        NullPointerException.class,
        "name must not be null",
        () -> BackoffSource.withBackoff(null, POLICY, SOURCE));
    rejects(
        NullPointerException.class,
        "policy must not be null",
        () -> BackoffSource.onFailuresWithBackoff(null, SOURCE));
    rejects(
        NullPointerException.class,
        "factory must not be null",
        () -> BackoffFlow.withBackoff(POLICY, null));
    rejects(
        NullPointerException.class,
        "policy must not be null",
        () -> BackoffFlow.onFailuresWithBackoff(null, () -> Flow.of(String.class)));
    rejects(
        NullPointerException.class,
        "factory must not be null",
        () -> BackoffSink.withBackoff(POLICY, null));
  }

  @Test
  void aBlankNameIsRejected() {
    rejects(
        IllegalArgumentException.class,
        "name must not be blank but was \" \"",
        () -> BackoffSink.withBackoff(" ", POLICY, Sink::ignore));
  }

  @Test
  void aFactoryThatThrowsIsAFailureOfTheInnerStream() {
    BackoffProbe probe = kit.createProbe();
    AtomicInteger calls = new AtomicInteger();
    SinkQueueWithCancel<String> out =
        BackoffSource.<String>withBackoff(
                POLICY.withListener(probe.listener()),
                () -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new Boom("cannot connect");
                  }
                  return Source.single("a");
                })
            .runWith(Sink.queue(), kit.system());
    assertTrue(probe.expectRestartScheduled().cause() instanceof Boom);
    probe.advanceToRestart(kit.time());
    Probes.expectNext(out, "a");
  }

  @Test
  void aFactoryThatReturnsNullFailsTheStreamNamingTheFactory() {
    SinkQueueWithCancel<String> out =
        BackoffSource.<String>withBackoff(POLICY.withStopOn(NullPointerException.class), () -> null)
            .runWith(Sink.queue(), kit.system());
    Throwable failure = Probes.expectError(out);
    assertEquals("factory returned null instead of a Source", failure.getMessage());
  }

  @Test
  void aConflictingBudgetFailsTheStreamAtItsStart() {
    RestartBudget one = RestartBudget.of("conflict", 5, Duration.ofSeconds(1));
    RestartBudget other = RestartBudget.of("conflict", 9, Duration.ofSeconds(1));
    SinkQueueWithCancel<String> first =
        BackoffSource.withBackoff(POLICY.withBudget(one), SOURCE)
            .runWith(Sink.queue(), kit.system());
    Probes.expectNext(first, "a");
    SinkQueueWithCancel<String> second =
        BackoffSource.withBackoff(POLICY.withBudget(other), SOURCE)
            .runWith(Sink.queue(), kit.system());
    Throwable failure = Probes.expectError(second);
    assertTrue(failure instanceof IllegalStateException, String.valueOf(failure));
    first.cancel();
  }
}
