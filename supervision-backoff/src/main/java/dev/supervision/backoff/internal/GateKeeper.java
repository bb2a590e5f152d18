package dev.supervision.backoff.internal;

import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.GateProtocol;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * INTERNAL API: watches every gate; when one stops, has the registry forget it and passes its
 * waiting actors, and requests that reached it too late, to the budget's new gate.
 */
public final class GateKeeper {

  private GateKeeper() {}

  public interface Registry {
    /** If it still serves {@code budgetName}. */
    void forget(String budgetName, ActorRef<GateProtocol.Command> gate);

    ActorRef<GateProtocol.Command> gate(RestartBudget budget);
  }

  public sealed interface Command {}

  public record Watch(RestartBudget budget, ActorRef<GateProtocol.Command> gate)
      implements Command {}

  private record Orphaned(BudgetGate.Orphans orphans) implements Command {}

  private record Dead(DeadLetter letter) implements Command {}

  private record Stopped(RestartBudget budget, ActorRef<GateProtocol.Command> gate)
      implements Command {}

  public static Behavior<Command> create(Registry registry) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<BudgetGate.Orphans> orphans =
              ctx.messageAdapter(BudgetGate.Orphans.class, Orphaned::new);
          ActorRef<DeadLetter> dead = ctx.messageAdapter(DeadLetter.class, Dead::new);
          ctx.getSystem().eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, dead));
          // recently stopped gates too, to re-route requests that reached them too late
          Map<ActorPath, RestartBudget> watched = new HashMap<>();
          Map<ActorPath, RestartBudget> stopped =
              new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<ActorPath, RestartBudget> eldest) {
                  return size() > 1024;
                }
              };
          return Behaviors.receive(Command.class)
              .onMessage(
                  Watch.class,
                  w -> {
                    watched.put(w.gate().path(), w.budget());
                    ctx.watchWith(w.gate(), new Stopped(w.budget(), w.gate()));
                    w.gate().tell(new BudgetGate.KeptBy(orphans));
                    return Behaviors.same();
                  })
              .onMessage(
                  Stopped.class,
                  s -> {
                    watched.remove(s.gate().path());
                    stopped.put(s.gate().path(), s.budget());
                    registry.forget(s.budget().getName(), s.gate());
                    return Behaviors.same();
                  })
              .onMessage(
                  Orphaned.class,
                  o -> {
                    BudgetGate.Orphans lost = o.orphans();
                    registry.forget(lost.budget().getName(), lost.gate());
                    ActorRef<GateProtocol.Command> next = registry.gate(lost.budget());
                    lost.waiting().forEach(next::tell);
                    return Behaviors.same();
                  })
              .onMessage(
                  Dead.class,
                  d -> {
                    if (d.letter().message() instanceof GateProtocol.Acquire acquire) {
                      ActorPath path = d.letter().recipient().path();
                      RestartBudget budget = watched.getOrDefault(path, stopped.get(path));
                      if (budget != null) {
                        registry.gate(budget).tell(acquire);
                      }
                    }
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
