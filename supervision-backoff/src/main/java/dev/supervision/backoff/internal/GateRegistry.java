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
 * INTERNAL API: the Pekko extension that owns one gate actor per restart budget name in an actor
 * system. The supervisor ({@link BackoffBehavior}) and the public facade {@code RestartBudgets}
 * both use it, so the engine never imports an entry point. Thread-safe.
 *
 * <p>A supervised actor registers its budget when it starts ({@link #handle}), looks its gate up at
 * the first failure of an episode and keeps the {@link Handle} until its backoff resets; it looks up
 * again only when the handle says its gate was {@link Handle#isForgotten() forgotten} (the gate
 * stopped, for example after {@code release}). Requests that reach a stopped gate before that are
 * passed on by the {@link GateKeeper}.
 */
public final class GateRegistry implements Extension {

  private static final ExtensionId<GateRegistry> ID = new Id();

  private static final class Id extends ExtensionId<GateRegistry> {
    @Override
    public GateRegistry createExtension(ActorSystem<?> system) {
      return new GateRegistry(system);
    }
  }

  /** A budget's gate as the registry handed it out; it says when the registry forgot it. */
  public static final class Handle {
    private final RestartBudget budget;
    private final ActorRef<GateProtocol.Command> gate;
    private volatile boolean forgotten;

    private Handle(RestartBudget budget, ActorRef<GateProtocol.Command> gate) {
      this.budget = budget;
      this.gate = gate;
    }

    /** The gate actor. */
    public ActorRef<GateProtocol.Command> gate() {
      return gate;
    }

    /** Whether the gate stopped and the registry forgot it: look the budget up again. */
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

  /** The registry of an actor system, created on first use. */
  public static GateRegistry get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /**
   * The gate of a budget, started on first use.
   *
   * @param budget the budget
   * @return its handle
   * @throws IllegalStateException if a budget with the same name and other limits is registered,
   *     or if the budget is cluster-wide and no {@link ClusterBudgetProvider} is on the classpath
   */
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

  /**
   * The gate that serves the named budget now, if any.
   *
   * @param budgetName the budget's name
   * @return its gate; empty if no actor used the budget yet (or since it was released)
   */
  public Optional<ActorRef<GateProtocol.Command>> current(String budgetName) {
    Handle handle = gates.get(budgetName);
    return handle == null ? Optional.empty() : Optional.of(handle.gate);
  }

  /** The names of the budgets in use. */
  public Set<String> names() {
    return Set.copyOf(gates.keySet());
  }

  private Handle start(RestartBudget budget) {
    long incarnation = incarnations.incrementAndGet();
    if (budget instanceof RestartBudget.Adaptive) {
      // published before the gate exists, so that it reaches every subscriber before the gate's
      // own events (the event stream handles its messages in the order they were sent)
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
