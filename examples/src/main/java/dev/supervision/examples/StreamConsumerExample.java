package dev.supervision.examples;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.stream.BackoffSource;
import dev.supervision.backoff.stream.BackoffStreams;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A stream that consumes a flaky resource: a restartable source polls the database; when the
 * database goes down, the source fails, backs off with full jitter and connects again.
 *
 * <p>Run it with {@code mvn -B -q -pl examples -am compile exec:java
 * -Dexec.mainClass=dev.supervision.examples.StreamConsumerExample}.
 */
public final class StreamConsumerExample {

  private StreamConsumerExample() {}

  /** What a run observed. */
  public record Result(int received, int restarts, boolean flowsAgain) {}

  // #stream-consumer
  /** The orders, polled from the database every 10 ms by a source that restarts with backoff. */
  static Source<String, NotUsed> orders(FlakyDatabase db, BackoffListener listener) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(50), Duration.ofSeconds(2)) // min, hard cap
            .withResetAfter(Duration.ofSeconds(10)) // ran this long without failing: count resets
            .withStopOn(IllegalArgumentException.class) // permanent: fail the stream
            .withListener(listener); // the same events as an actor's, named "orders-feed"
    return BackoffSource.withBackoff(
        "orders-feed",
        policy,
        () -> {
          db.connect(); // throws while the database is down: that start backs off too
          return Source.tick(Duration.ZERO, Duration.ofMillis(10), "select next order")
              .map(db::query); // throws while the database is down: the source fails
        });
  }

  // #stream-consumer

  /**
   * Runs the scenario: orders flow, the database goes down for {@code outage}, and the stream
   * restarts until orders flow again.
   *
   * @param outage how long the database is down
   * @param out where to print what happens
   * @return what was observed
   * @throws Exception if the actor system fails to start or stop
   */
  public static Result run(Duration outage, PrintStream out) throws Exception {
    FlakyDatabase db = new FlakyDatabase();
    ConcurrentLinkedQueue<BackoffEvent> seen = new ConcurrentLinkedQueue<>();
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "stream-consumer-example");
    AtomicInteger received = new AtomicInteger();
    try {
      Pair<UniqueKillSwitch, CompletionStage<Done>> running =
          orders(db, seen::add)
              .viaMat(KillSwitches.single(), Keep.right())
              .toMat(Sink.foreach(order -> received.incrementAndGet()), Keep.both())
              .run(system);
      waitUntil(() -> received.get() >= 5);
      out.println("orders flow; the database goes down for " + outage.toMillis() + " ms");
      db.setUp(false);
      system.scheduler().scheduleOnce(outage, () -> db.setUp(true), system.executionContext());
      waitUntil(() -> !seen.isEmpty());
      int before = received.get();
      boolean flowsAgain = waitUntil(() -> restarts(seen) > 0 && received.get() >= before + 5);
      running.first().shutdown();
      running.second().toCompletableFuture().get(5, TimeUnit.SECONDS);
      seen.stream()
          .filter(e -> e instanceof BackoffEvent.RestartScheduled)
          .limit(5)
          .forEach(
              e ->
                  out.println(
                      "  "
                          + BackoffStreams.streamName(e).orElse("?")
                          + " restarts in "
                          + ((BackoffEvent.RestartScheduled) e).delay().toMillis()
                          + " ms (attempt "
                          + ((BackoffEvent.RestartScheduled) e).attempt()
                          + ")"));
      out.printf(
          "%d orders received, %d restarts, orders flow again: %s%n",
          received.get(), restarts(seen), flowsAgain);
      return new Result(received.get(), restarts(seen), flowsAgain);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static int restarts(ConcurrentLinkedQueue<BackoffEvent> seen) {
    return (int) seen.stream().filter(e -> e instanceof BackoffEvent.Restarted).count();
  }

  /** Polls {@code condition} for up to 20 s; true if it became true. */
  private static boolean waitUntil(BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return condition.getAsBoolean();
  }

  /**
   * Runs the example with a 1 second outage.
   *
   * @param args ignored
   * @throws Exception if the actor system fails to start or stop
   */
  public static void main(String[] args) throws Exception {
    run(Duration.ofSeconds(1), System.out);
  }
}
