package dev.supervision.examples;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Configuring a policy inside {@code Behaviors.setup}: the parent decides, when it starts, how each
 * child is supervised, here from the number of children it runs (a larger pool gets a longer cap,
 * so that its restarts spread over a wider window).
 */
public final class PolicyInSetupExample {

  private PolicyInSetupExample() {}

  /** Messages of the parent. */
  public sealed interface Command {}

  /**
   * Forwards a query to the child with this index.
   *
   * @param index the child
   * @param query the query
   */
  public record Forward(int index, Worker.Query query) implements Command {}

  /**
   * A parent that supervises {@code children} workers, with a policy it builds in setup.
   *
   * @param db the shared database
   * @param children how many workers
   * @return the behavior
   */
  public static Behavior<Command> create(FlakyDatabase db, int children) {
    return Behaviors.setup(
        ctx -> {
          BackoffPolicy policy = policyFor(children);
          ctx.getLog().info("supervising {} workers with {}", children, policy);
          ActorRef<?>[] workers = new ActorRef<?>[children];
          for (int i = 0; i < children; i++) {
            workers[i] =
                ctx.spawn(BackoffSupervisor.wrap(Worker.create(db), policy), "worker-" + i);
          }
          return Behaviors.receive(Command.class)
              .onMessage(
                  Forward.class,
                  f -> {
                    @SuppressWarnings("unchecked")
                    ActorRef<Worker.Query> worker = (ActorRef<Worker.Query>) workers[f.index()];
                    worker.tell(f.query());
                    return Behaviors.same();
                  })
              .build();
        });
  }

  /**
   * The policy for a pool of {@code children}: min 100 ms, a cap of one second per 100 children
   * (at least 5 s, at most 60 s), full jitter, at most 10 restarts between resets.
   *
   * @param children the pool size
   * @return the policy
   */
  public static BackoffPolicy policyFor(int children) {
    long capSeconds = Math.max(5, Math.min(60, children / 100));
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(capSeconds))
        .withJitter(Jitter.full())
        .withMaxRestarts(10)
        .withResetAfter(Duration.ofSeconds(30));
  }
}
