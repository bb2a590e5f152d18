package dev.supervision.backoff.internal;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.ClusterBudgetProvider;
import dev.supervision.backoff.spi.GateProtocol;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;

/**
 * INTERNAL API: the extension with one gate actor per budget name, used by the supervisor and by
 * {@code RestartBudgets} (so the engine imports no entry point). Thread-safe. A {@link Handle} is
 * kept until it says its gate was forgotten (stopped); the {@link GateKeeper} passes on requests
 * that reach a stopped gate meanwhile.
 */
public final class GateRegistry implements Extension {

  private static final ExtensionId<GateRegistry> ID =
      new ExtensionId<>() {
        @Override
        public GateRegistry createExtension(ActorSystem<?> system) {
          return new GateRegistry(system);
        }
      };

  public static final class Handle {
    private final RestartBudget budget;
    private final ActorRef<GateProtocol.Command> gate;
    private volatile boolean forgotten;

    private Handle(RestartBudget budget, ActorRef<GateProtocol.Command> gate) {
      this.budget = budget;
      this.gate = gate;
    }

    public ActorRef<GateProtocol.Command> gate() {
      return gate;
    }

    public boolean isForgotten() {
      return forgotten;
    }
  }

  private final ActorSystem<?> system;
  private final ConcurrentMap<String, Handle> gates = new ConcurrentHashMap<>();
  private final AtomicLong incarnations = new AtomicLong();
  private final ActorRef<GateKeeper.Command> keeper;

  private GateRegistry(ActorSystem<?> system) {
    this.system = system;
    this.keeper =
        system.systemActorOf(
            GateKeeper.create(
                new GateKeeper.Registry() {
                  @Override
                  public void forget(String budgetName, ActorRef<GateProtocol.Command> gate) {
                    gates.computeIfPresent(
                        budgetName,
                        (name, handle) -> {
                          if (!handle.gate.equals(gate)) {
                            return handle;
                          }
                          handle.forgotten = true;
                          return null;
                        });
                  }

                  @Override
                  public ActorRef<GateProtocol.Command> gate(RestartBudget budget) {
                    return handle(budget).gate();
                  }
                }),
            "restart-budgets",
            Props.empty());
  }

  public static GateRegistry get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /** Started on first use; throws for a name in use with other limits, or no cluster module. */
  public Handle handle(RestartBudget budget) {
    Handle handle = gates.computeIfAbsent(budget.getName(), name -> start(budget));
    if (!handle.budget.sameLimitsAs(budget)) {
      throw new IllegalStateException(
          "restart budget \""
              + budget.getName()
              + "\" is already in use with other limits: "
              + handle.budget
              + " (in use) vs "
              + budget
              + " (requested); one name, one set of limits");
    }
    return handle;
  }

  public Optional<ActorRef<GateProtocol.Command>> current(String budgetName) {
    Handle handle = gates.get(budgetName);
    return handle == null ? Optional.empty() : Optional.of(handle.gate);
  }

  public Set<String> names() {
    return Set.copyOf(gates.keySet());
  }

  private Handle start(RestartBudget budget) {
    long incarnation = incarnations.incrementAndGet();
    if (budget instanceof RestartBudget.Adaptive) {
      // before the gate exists, so that every subscriber gets it before the gate's own events
      system
          .eventStream()
          .tell(new EventStream.Publish<>(new BudgetEvent.Started(budget.getName())));
    }
    ActorRef<GateProtocol.Command> gate =
        system.systemActorOf(
            budget.isClusterWide() ? clusterGate(budget) : BudgetGate.create(budget, 1),
            "restart-budget-"
                + URLEncoder.encode(budget.getName(), StandardCharsets.UTF_8)
                + "-"
                + incarnation,
            Props.empty());
    keeper.tell(new GateKeeper.Watch(budget, gate));
    return new Handle(budget, gate);
  }

  private static Behavior<GateProtocol.Command> clusterGate(RestartBudget budget) {
    for (ClusterBudgetProvider provider : ServiceLoader.load(ClusterBudgetProvider.class)) {
      return provider.gate(
          budget.getName(),
          budget instanceof RestartBudget.Adaptive adaptive
              ? Optional.of(AdaptiveLimiter.parameters(adaptive))
              : Optional.empty(),
          members -> BudgetGate.create(budget, members));
    }
    throw new IllegalStateException(
        "restart budget \""
            + budget.getName()
            + "\" is cluster-wide, which needs the module "
            + "dev.supervision:supervision-backoff-cluster on the classpath");
  }
}
