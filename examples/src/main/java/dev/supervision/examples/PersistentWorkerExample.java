package dev.supervision.examples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/**
 * A persistent worker: an event-sourced entity that records the jobs it has done, wrapped with
 * {@code BackoffSupervisor.wrap}. When its journal fails, the worker is restarted with backoff and
 * recovers its state from the journal. The run simulates a journal outage with Pekko's persistence
 * test kit (its in-memory journal can be told to fail the next write).
 *
 * <p>Run it with {@code mvn -B -q -pl examples -am install -DskipTests && mvn -B -q -pl examples
 * exec:java -Dexec.mainClass=dev.supervision.examples.PersistentWorkerExample}.
 */
public final class PersistentWorkerExample {

  private PersistentWorkerExample() {}

  /** What the worker understands. */
  public sealed interface Command {}

  /**
   * Records that {@code job} is done; replies with the number of jobs done once it is in the journal.
   *
   * @param job the job's id
   * @param replyTo who gets the number of jobs done
   */
  public record RecordJob(String job, ActorRef<Integer> replyTo) implements Command {}

  /**
   * Asks for the number of jobs done.
   *
   * @param replyTo who gets it
   */
  public record CountJobs(ActorRef<Integer> replyTo) implements Command {}

  /**
   * What a run observed.
   *
   * @param before jobs done before the journal failed
   * @param recovered jobs done as recovered by the restarted worker
   * @param after jobs done after the failed job was recorded again
   * @param restarts restarts of the worker
   */
  public record Result(int before, int recovered, int after, int restarts) {}

  // #persistent-worker
  /** A persistent worker, restarted with backoff when it or its journal fails. */
  public static Behavior<Command> worker(String workerId, BackoffListener listener) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(30))
            .withResetAfter(Duration.ofMinutes(1))
            .withListener(listener); // RestartScheduled carries the journal's failure as its cause
    // no onPersistFailure: a journal failure fails the entity, and wrap restarts it with the policy
    return BackoffSupervisor.wrap(new JobLedger(PersistenceId.of("Worker", workerId)), policy);
  }

  /** The entity: its events are the ids of the jobs done, its state how many there are. */
  static final class JobLedger extends EventSourcedBehavior<Command, String, Integer> {

    JobLedger(PersistenceId persistenceId) {
      super(persistenceId);
    }

    @Override
    public Integer emptyState() {
      return 0;
    }

    @Override
    public CommandHandler<Command, String, Integer> commandHandler() {
      return newCommandHandlerBuilder()
          .forAnyState()
          .onCommand(
              RecordJob.class,
              (done, c) -> Effect().persist(c.job()).thenReply(c.replyTo(), n -> n))
          .onCommand(CountJobs.class, (done, c) -> Effect().reply(c.replyTo(), done))
          .build();
    }

    @Override
    public EventHandler<Integer, String> eventHandler() {
      return newEventHandlerBuilder().forAnyState().onAnyEvent((done, job) -> done + 1);
    }
  }

  // #persistent-worker

  /**
   * Runs the scenario: two jobs, a journal failure on the third, the restart, the recovered count,
   * and the third job again.
   *
   * @param out where to print what happens
   * @return what was observed
   * @throws Exception if the actor system fails to start or stop, or an answer does not come
   */
  public static Result run(PrintStream out) throws Exception {
    Config config =
        PersistenceTestKitPlugin.getInstance()
            .config()
            .withFallback(PersistenceTestKitSnapshotPlugin.getInstance().config())
            .withFallback(ConfigFactory.load());
    CompletableFuture<BackoffEvent.Restarted> restarted = new CompletableFuture<>();
    int[] restarts = {0};
    BackoffListener listener =
        event -> {
          if (event instanceof BackoffEvent.RestartScheduled scheduled) {
            out.println(
                "worker failed: "
                    + scheduled.cause()
                    + "; restart in "
                    + scheduled.delay().toMillis()
                    + " ms");
          } else if (event instanceof BackoffEvent.Restarted r) {
            restarts[0]++;
            restarted.complete(r);
          }
        };
    ActorSystem<Command> system =
        ActorSystem.create(worker("worker-1", listener), "persistent-worker-example", config);
    try {
      PersistenceTestKit journal = PersistenceTestKit.create(system);
      record(system, "job-1");
      int before = record(system, "job-2");
      out.println("jobs done: " + before + "; the journal fails the next write");
      journal.failNextPersisted();
      system.tell(new RecordJob("job-3", system.ignoreRef())); // not recorded: the write fails
      restarted.get(10, TimeUnit.SECONDS);
      int recovered = ask(system, CountJobs::new);
      out.println("restarted; jobs done, recovered from the journal: " + recovered);
      int after = record(system, "job-3");
      out.println("job-3 recorded again; jobs done: " + after);
      return new Result(before, recovered, after, restarts[0]);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static int record(ActorSystem<Command> system, String job) throws Exception {
    return ask(system, replyTo -> new RecordJob(job, replyTo));
  }

  private static int ask(ActorSystem<Command> system, Function<ActorRef<Integer>, Command> command)
      throws Exception {
    return AskPattern.ask(system, command::apply, Duration.ofSeconds(5), system.scheduler())
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Runs the example.
   *
   * @param args ignored
   * @throws Exception if the run fails
   */
  public static void main(String[] args) throws Exception {
    Result result = run(System.out);
    if (result.recovered() != result.before() || result.after() != result.before() + 1) {
      System.exit(1);
    }
  }
}
