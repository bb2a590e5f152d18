package dev.supervision.backoff;

import dev.supervision.backoff.internal.GateRegistry;
import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The Pekko extension that owns one gate actor per {@link RestartBudget} name in an actor system;
 * users need it only to observe a budget ({@code RestartBudgets.get(system).status("orders-db")})
 * or to {@link #release(String) release} one. Thread-safe. A gate that stops for any reason is
 * forgotten at once: the next actor that needs the budget starts a new gate, and the actors that
 * waited in the old one are passed, in order, to the new one.
 */
public final class RestartBudgets implements Extension {

  /** The extension's id. */
  public static final ExtensionId<RestartBudgets> ID = new Id();

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  private static final class Id extends ExtensionId<RestartBudgets> {
    @Override
    public RestartBudgets createExtension(ActorSystem<?> system) {
      return new RestartBudgets(system);
    }
  }

  private final ActorSystem<?> system;
  private final GateRegistry registry;

  private RestartBudgets(ActorSystem<?> system) {
    this.system = system;
    this.registry = GateRegistry.get(system);
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
   * The gate actor of a budget, started on first use, for tools that speak its {@link GateProtocol}
   * (asking for permits directly, as the benchmarks do).
   *
   * @param budget the budget
   * @return the gate actor
   * @throws NullPointerException if {@code budget} is null
   * @throws IllegalStateException if a budget with the same name and other limits is in use, or if
   *     the budget is cluster-wide and the module {@code supervision-backoff-cluster} is missing
   */
  public ActorRef<GateProtocol.Command> gate(RestartBudget budget) {
    Check.nonNull(budget, "budget");
    return registry.handle(budget).gate();
  }

  /**
   * How many actors wait for a permit of the named budget right now.
   *
   * @param budgetName the budget's name
   * @return the number of waiting actors; 0 if no actor used the budget yet
   * @throws NullPointerException if {@code budgetName} is null
   */
  public CompletionStage<Integer> waiting(String budgetName) {
    return ask(budgetName, GateProtocol.Waiting::new).orElse(CompletableFuture.completedFuture(0));
  }

  /**
   * The named budget's state (see {@link GateProtocol.Status}).
   *
   * @param budgetName the budget's name
   * @return its status; empty if no actor uses the budget
   * @throws NullPointerException if {@code budgetName} is null
   */
  public CompletionStage<Optional<GateProtocol.Status>> status(String budgetName) {
    return ask(budgetName, GateProtocol.Query::new)
        .map(reply -> reply.thenApply(Optional::of))
        .orElse(CompletableFuture.completedFuture(Optional.empty()));
  }

  // the named budget's gate's reply to message, or empty if no actor uses the budget
  private <R> Optional<CompletionStage<R>> ask(
      String budgetName, Function<ActorRef<R>, GateProtocol.Command> message) {
    Check.nonNull(budgetName, "budgetName");
    return registry
        .current(budgetName)
        .map(gate -> AskPattern.ask(gate, message::apply, ASK_TIMEOUT, system.scheduler()));
  }

  /**
   * The names of the budgets in use.
   *
   * @return a snapshot of the names
   */
  public Set<String> names() {
    return registry.names();
  }

  /**
   * Releases a budget name, so that budgets made per tenant or per request do not each keep a gate
   * actor for ever: its gate stops once no actor waits and no permit is in flight. An actor that
   * needs the budget again starts a new gate, which starts afresh. Does nothing if not in use.
   *
   * @param budgetName the budget's name
   * @throws NullPointerException if {@code budgetName} is null
   */
  public void release(String budgetName) {
    Check.nonNull(budgetName, "budgetName");
    registry.current(budgetName).ifPresent(gate -> gate.tell(new GateProtocol.Retire()));
  }
}
