package dev.supervision.backoff.testsupport;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.internal.BudgetGate;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Status;
import java.util.function.Consumer;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** The fixture of the gate tests: a grant, requesters, and the gate's answers to its queries. */
public final class Gates {

  private Gates() {}

  /**
   * The permit a test's requester gets: a signal, as a supervisor's permit is.
   *
   * @param who names the request it grants
   */
  public record Grant(String who) implements Signal {}

  /** A requester that gives each grant it gets to {@code onGrant} (and never reports a start). */
  public static ActorRef<Object> requester(ActorTestKit kit, Consumer<Grant> onGrant) {
    return kit.spawn(
        Behaviors.receive(Object.class)
            .onSignal(
                Grant.class,
                g -> {
                  onGrant.accept(g);
                  return Behaviors.same();
                })
            .build());
  }

  /** A requester that forwards the name in each grant it gets to {@code granted}. */
  public static ActorRef<Object> forwarding(ActorTestKit kit, TestProbe<String> granted) {
    return requester(kit, g -> granted.ref().tell(g.who()));
  }

  /** How many actors wait in {@code gate} now. */
  public static int waiting(ActorTestKit kit, ActorRef<GateProtocol.Command> gate) {
    TestProbe<Integer> reply = kit.createTestProbe();
    gate.tell(new GateProtocol.Waiting(reply.ref()));
    return reply.receiveMessage();
  }

  /** The gate's status now. */
  public static Status status(ActorTestKit kit, ActorRef<GateProtocol.Command> gate) {
    TestProbe<Status> reply = kit.createTestProbe();
    gate.tell(new GateProtocol.Query(reply.ref()));
    return reply.receiveMessage();
  }

  /**
   * A gate of {@code budget} with {@code waiters} requests of one requester waiting from now on: the
   * gate has them all, and its timer runs, before the caller lets time pass.
   */
  public static ActorRef<GateProtocol.Command> queued(
      ActorTestKit kit, RestartBudget budget, int waiters) {
    ActorRef<GateProtocol.Command> gate = kit.spawn(BudgetGate.create(budget, 1));
    ActorRef<Object> r = requester(kit, g -> {});
    for (int i = 0; i < waiters; i++) {
      gate.tell(new Acquire(r, new Grant("w" + i)));
    }
    waiting(kit, gate);
    return gate;
  }
}
