package dev.supervision.backoff.stream;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Inner sources that run until the test fails them: each one the factory makes waits on a future
 * of its own, which {@link #fail(Throwable)} fails.
 */
final class Controlled {

  private final LinkedBlockingDeque<CompletableFuture<String>> started =
      new LinkedBlockingDeque<>();

  /** The factory's body: a new running inner source. */
  Source<String, NotUsed> create() {
    CompletableFuture<String> future = new CompletableFuture<>();
    started.add(future);
    return Source.completionStage(future);
  }

  /** Fails the inner source started last; waits for it to start first. */
  void fail(Throwable failure) {
    try {
      CompletableFuture<String> running = started.pollLast(5, TimeUnit.SECONDS);
      if (running == null) {
        throw new AssertionError("no inner source started within 5 s");
      }
      started.clear();
      running.completeExceptionally(failure);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
