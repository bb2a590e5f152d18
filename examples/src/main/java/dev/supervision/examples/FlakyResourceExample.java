package dev.supervision.examples;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The main example: workers that talk to a flaky database, supervised with full-jitter backoff.
 * The database goes down for a while, every worker fails, and they come back spread out.
 *
 * <p>Run it with {@code mvn -B -q -pl examples -am compile exec:java}: it prints one log line per
 * restart and a summary.
 */
public final class FlakyResourceExample {

  private FlakyResourceExample() {}

  /** What a run observed. */
  public record Result(int workers, int restarts, int calls, boolean allAnswered) {}

  // #quick-start
  /** The guardian: spawns the workers, each wrapped in a backoff supervisor. */
  static Behavior<Worker.Query> guardian(FlakyDatabase db, int workers, BackoffListener listener) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(50), Duration.ofSeconds(2)) // min, hard cap
            .withJitter(Jitter.full()) // the default: random(0, bound)
            .withResetAfter(Duration.ofSeconds(10)) // healthy this long: count starts over
            .withStopOn(IllegalArgumentException.class) // permanent: stop, don't restart
            .withListener(listener); // RestartScheduled, Restarted, BackoffReset, GaveUp, ...
    return Behaviors.setup(
        ctx -> {
          List<ActorRef<Worker.Query>> pool = new ArrayList<>();
          for (int i = 0; i < workers; i++) {
            pool.add(ctx.spawn(BackoffSupervisor.wrap(Worker.create(db), policy), "worker-" + i));
          }
          int[] next = {0};
          return Behaviors.receive(Worker.Query.class)
              .onMessage(
                  Worker.Query.class,
                  q -> {
                    pool.get(next[0]++ % pool.size()).tell(q); // round robin
                    return Behaviors.same();
                  })
              .build();
        });
  }

  // #quick-start

  /**
   * Runs the scenario: queries while the database is up, an outage during which every worker
   * fails, then queries until every worker answers again.
   *
   * @param workers how many workers
   * @param outage how long the database stays down once every worker has failed
   * @param out where to print what happens
   * @return what was observed
   * @throws Exception if the actor system fails to start or stop
   */
  public static Result run(int workers, Duration outage, PrintStream out) throws Exception {
    FlakyDatabase db = new FlakyDatabase();
    ConcurrentLinkedQueue<BackoffEvent> seen = new ConcurrentLinkedQueue<>();
    Set<ActorRef<?>> failed = ConcurrentHashMap.newKeySet();
    CompletableFuture<Void> everyWorkerFailed = new CompletableFuture<>();
    BackoffListener listener =
        e -> {
          seen.add(e);
          if (e instanceof BackoffEvent.RestartScheduled
              && failed.add(e.actor())
              && failed.size() == workers) {
            everyWorkerFailed.complete(null);
          }
        };
    ActorSystem<Worker.Query> system =
        ActorSystem.create(guardian(db, workers, listener), "flaky-resource-example");
    try {
      askAll(system, workers, "before the outage");
      out.println("database goes down for " + outage.toMillis() + " ms");
      db.setUp(false);
      for (int i = 0; i < workers; i++) { // each worker fails on its next query
        system.tell(new Worker.Query("select 1", system.ignoreRef()));
      }
      // the outage lasts from now until `outage` after every worker has failed
      everyWorkerFailed.get(20, TimeUnit.SECONDS);
      system.scheduler().scheduleOnce(outage, () -> db.setUp(true), system.executionContext());
      boolean allAnswered = false;
      for (int round = 0; round < 40 && !allAnswered; round++) {
        allAnswered = askAll(system, workers, "after the outage");
      }
      int restarts = (int) seen.stream().filter(e -> e instanceof BackoffEvent.Restarted).count();
      int failures =
          (int) seen.stream().filter(e -> e instanceof BackoffEvent.RestartScheduled).count();
      seen.stream()
          .filter(e -> e instanceof BackoffEvent.RestartScheduled)
          .limit(5)
          .forEach(
              e ->
                  out.println(
                      "  "
                          + e.actor().path().name()
                          + " restart in "
                          + ((BackoffEvent.RestartScheduled) e).delay().toMillis()
                          + " ms (attempt "
                          + ((BackoffEvent.RestartScheduled) e).attempt()
                          + ")"));
      out.printf(
          "%d workers, %d failures handled, %d restarts, %d calls to the database, all answering again: %s%n",
          workers, failures, restarts, db.calls(), allAnswered);
      return new Result(workers, restarts, db.calls(), allAnswered);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Asks every worker once (round robin); true if all answered within 500 ms. */
  private static boolean askAll(ActorSystem<Worker.Query> system, int workers, String label) {
    List<CompletionStage<String>> answers = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      answers.add(
          AskPattern.ask(
              system,
              (ActorRef<String> r) -> new Worker.Query("select 1", r),
              Duration.ofMillis(500),
              system.scheduler()));
    }
    boolean all = true;
    for (CompletionStage<String> answer : answers) {
      try {
        answer.toCompletableFuture().get();
      } catch (Exception e) {
        all = false;
      }
    }
    return all;
  }

  /**
   * Runs the example with 5 workers and a 1 second outage.
   *
   * @param args ignored
   * @throws Exception if the run fails
   */
  public static void main(String[] args) throws Exception {
    // Start logging before the actor system's threads log: otherwise SLF4J may report that it
    // replayed a line logged while it was starting.
    org.slf4j.LoggerFactory.getILoggerFactory();
    Result result = run(5, Duration.ofSeconds(1), System.out);
    if (!result.allAnswered()) {
      System.exit(1);
    }
  }
}
