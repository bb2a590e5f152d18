package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffProbe;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Plain-Pekko probes for the stream tests ({@code pekko-stream-testkit} is not served at the Pekko
 * version under test, and Pekko refuses mixed module versions): a {@code Sink.queue()} read with
 * timeouts, and small helpers.
 */
final class Probes {

  /** How long a test waits in real time for something that must happen. */
  static final Duration WAIT = Duration.ofSeconds(5);

  private Probes() {}

  /** A policy without jitter, so that delays are exact: 1 s, 2 s, 4 s, ... up to 10 s. */
  static BackoffPolicy exact() {
    return BackoffPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withLoggingEnabled(false);
  }

  /** {@link #exact()}, its events told to {@code events}. */
  static BackoffPolicy exact(BackoffProbe events) {
    return exact().withListener(events.listener());
  }

  /**
   * A factory of inner sources that counts the sources it made.
   *
   * @param make makes the n-th source (n from 1)
   */
  static <T> Counting<T> counting(IntFunction<Source<T, ?>> make) {
    return new Counting<>(make);
  }

  /** A factory of inner sources that counts the sources it made. */
  static final class Counting<T> implements Creator<Source<T, ?>> {
    private final AtomicInteger made = new AtomicInteger();
    private final IntFunction<Source<T, ?>> make;

    private Counting(IntFunction<Source<T, ?>> make) {
      this.make = make;
    }

    @Override
    public Source<T, ?> create() {
      return make.apply(made.incrementAndGet());
    }

    /** How many sources it made. */
    int made() {
      return made.get();
    }
  }

  /** The next element of {@code queue}, which must come within {@link #WAIT}. */
  static <T> T next(SinkQueueWithCancel<T> queue) {
    Optional<T> next = await(queue.pull());
    assertTrue(next.isPresent(), "expected an element, but the stream completed");
    return next.get();
  }

  /** Expects {@code expected} as the next element. */
  static <T> void expectNext(SinkQueueWithCancel<T> queue, T expected) {
    assertEquals(expected, next(queue));
  }

  /** Expects the stream to complete: the next pull gives no element. */
  static void expectComplete(SinkQueueWithCancel<?> queue) {
    Optional<?> next = await(queue.pull());
    assertTrue(next.isEmpty(), "expected completion, got " + next);
  }

  /** Expects the stream to fail; returns the failure. */
  static Throwable expectError(SinkQueueWithCancel<?> queue) {
    return failureOf(queue.pull());
  }

  /** The failure of a stage that must fail within {@link #WAIT}. */
  static Throwable failureOf(CompletionStage<?> stage) {
    try {
      Object value = stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      return fail("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      return fail("no failure within " + WAIT + ": " + e);
    }
  }

  /** The value of a stage that must complete within {@link #WAIT}. */
  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return fail("failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      return fail("nothing within " + WAIT + ": " + e);
    }
  }

  /** Asserts that {@code stage} is not complete after a short real-time wait. */
  static void expectPending(CompletionStage<?> stage) {
    try {
      Object value = stage.toCompletableFuture().get(200, TimeUnit.MILLISECONDS);
      fail("expected nothing yet, got " + value);
    } catch (TimeoutException expected) {
      // nothing came
    } catch (ExecutionException e) {
      fail("expected nothing yet, got the failure " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      fail(e);
    }
  }

  /** The failure the tests throw from inner streams. */
  static final class Boom extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Boom(String message) {
      super(message, null, false, false);
    }
  }
}
