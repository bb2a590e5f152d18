package dev.supervision.backoff;

import dev.supervision.backoff.internal.BudgetGate;
import dev.supervision.backoff.internal.ClusterBudgetProvider;
import java.util.ServiceLoader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The Pekko extension that owns one gate actor per {@link RestartBudget} name in an actor system.
 * Supervised actors find their budget's gate here by themselves; users need it only to observe a
 * budget. Thread-safe.
 *
 * <pre>{@code
 * RestartBudgets.get(system).waiting("orders-db").thenAccept(n -> ...);
 * }</pre>
 */
public final class RestartBudgets implements Extension {

  /** The extension's id. */
  public static final ExtensionId<RestartBudgets> ID = new Id();

  private static final class Id extends ExtensionId<RestartBudgets> {
    @Override
    public RestartBudgets createExtension(ActorSystem<?> system) {
      return new RestartBudgets(system);
    }
  }

  private record Entry(RestartBudget budget, ActorRef<BudgetGate.Command> gate) {}

  private final ActorSystem<?> system;
  private final ConcurrentMap<String, Entry> gates = new ConcurrentHashMap<>();

  private RestartBudgets(ActorSystem<?> system) {
    this.system = system;
  }

  /**
   * The extension of an actor system, created on first use.
   *
   * @param system the actor system
   * @return its extension
   */
  public static RestartBudgets get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /**
   * INTERNAL API: the gate of a budget, started on first use.
   *
   * @param budget the budget
   * @return the gate actor
   * @throws IllegalStateException if a budget with the same name and other limits is registered
   */
  public ActorRef<BudgetGate.Command> gate(RestartBudget budget) {
    Entry entry =
        gates.computeIfAbsent(
            budget.getName(),
            name -> new Entry(budget, system.systemActorOf(
                budget.isClusterWide() ? clusterGate(budget) : BudgetGate.create(budget),
                "restart-budget-" + URLEncoder.encode(name, StandardCharsets.UTF_8),
                Props.empty())));
    if (!entry.budget().sameLimitsAs(budget)) {
      throw new IllegalStateException(
          "restart budget \"" + budget.getName() + "\" is already in use with other limits: "
              + entry.budget() + " (in use) vs " + budget + " (requested); one name, one set of limits");
    }
    return entry.gate();
  }

  private static org.apache.pekko.actor.typed.Behavior<BudgetGate.Command> clusterGate(RestartBudget budget) {
    for (ClusterBudgetProvider provider : ServiceLoader.load(ClusterBudgetProvider.class)) {
      return provider.gate(budget);
    }
    throw new IllegalStateException(
        "restart budget \"" + budget.getName() + "\" is cluster-wide, which needs the module "
            + "dev.supervision:supervision-backoff-cluster on the classpath");
  }

  /**
   * How many actors wait for a permit of the named budget right now.
   *
   * @param budgetName the budget's name
   * @return the number of waiting actors; 0 if no actor used the budget yet
   */
  public CompletionStage<Integer> waiting(String budgetName) {
    Require.nonNull(budgetName, "budgetName");
    Entry entry = gates.get(budgetName);
    if (entry == null) {
      return java.util.concurrent.CompletableFuture.completedFuture(0);
    }
    return AskPattern.ask(entry.gate(), BudgetGate.Waiting::new, Duration.ofSeconds(5), system.scheduler());
  }
}
