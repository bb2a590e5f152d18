package dev.supervision.backoff;

import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;

/**
 * What an adaptive {@link RestartBudget} did, published on the actor system's event stream. Every
 * event names the {@link #budget()} it is about. Subscribe with
 *
 * <pre>{@code
 * system.eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, monitor));
 * }</pre>
 *
 * <ul>
 *   <li>{@link Started}: the budget's gate started, steady and without a limit: the first actor
 *       that uses the budget started (or, after the gate stopped or was {@linkplain
 *       RestartBudgets#release(String) released}, the first that needed it again).
 *   <li>{@link StateChanged}: the budget went from one state to another (steady, holding, ramping).
 *   <li>{@link RateChanged}: the rate it allows changed: a cut to the measured goodput after
 *       failures, the start of ramping, and growth (published each time the rate has grown by a
 *       quarter since the last event).
 *   <li>{@link Probe}: while holding, one restart was let through to test the resource.
 *   <li>{@link CoordinationChanged}: for an adaptive cluster-wide budget, where this node stands in
 *       the cluster's coordination changed: it lost it (a member's line is missing or stale) or
 *       picked it up again, it became or stopped being the prober, or the back epoch was raised.
 * </ul>
 */
public sealed interface BudgetEvent {

  /**
   * The budget's name.
   *
   * @return the name
   */
  String budget();

  /**
   * The budget's gate started: the budget is {@code STEADY}, allows restarts without a limit and
   * has measured no goodput yet. Published when the first actor that uses the budget starts (its
   * supervisor looks the gate up then), or when an actor needs the budget again after its gate
   * stopped or was {@linkplain RestartBudgets#release(String) released}: a new gate starts with a
   * controller that has to learn again. Published before any other event of that gate.
   *
   * @param budget the budget's name
   */
  record Started(String budget) implements BudgetEvent {}

  /**
   * The budget changed state.
   *
   * @param budget the budget's name
   * @param from the old state
   * @param to the new state
   * @param reason why
   */
  record StateChanged(String budget, State from, State to, Reason reason) implements BudgetEvent {}

  /**
   * The rate the budget allows changed.
   *
   * @param budget the budget's name
   * @param from the old rate, restarts per second ({@code Infinity} if there was no limit)
   * @param to the new rate, restarts per second
   * @param goodput the measured goodput (restarts per second that survived their probation) that
   *     caused a {@link Reason#LOSS}; {@code NaN} for other reasons
   * @param reason why
   */
  record RateChanged(String budget, double from, double to, double goodput, Reason reason)
      implements BudgetEvent {}

  /**
   * A probe restart was let through while holding.
   *
   * @param budget the budget's name
   * @param probes how many probes since holding began, this one included
   */
  record Probe(String budget, int probes) implements BudgetEvent {}

  /**
   * Where this node stands in an adaptive cluster-wide budget's coordination changed (published by
   * the module {@code supervision-backoff-cluster}, on the node concerned): at the coordination's
   * first decision, and whenever the node loses the coordination (it decides alone: a counted
   * member's line is missing, or older than the stale window and not quiet) or picks it up again,
   * becomes or stops being the node that probes for the cluster, or learns a higher back epoch
   * (its own probe found the resource back, or another node's did). The share, which follows the
   * cluster's waiting actors every round, is not a reason for an event: {@code
   * RestartBudgets.status} and the Micrometer gauges show it.
   *
   * @param budget the budget's name
   * @param coordinated {@code true} if the node acts as part of one cluster-wide budget, {@code
   *     false} on its local fallback
   * @param prober whether this node may probe while it holds
   * @param members the nodes counted as sharing the budget, this one included
   * @param inView the nodes whose lines counted, this one included ({@code < members} while the
   *     node decides alone)
   * @param backEpoch the highest back epoch the node knows (raised each time a probe finds the
   *     resource back)
   * @param raisedHere {@code true} if this event reports a back epoch that this node's own probe
   *     raised; {@code false} otherwise (a higher epoch heard from another node, or no new epoch)
   */
  record CoordinationChanged(
      String budget,
      boolean coordinated,
      boolean prober,
      int members,
      int inView,
      long backEpoch,
      boolean raisedHere)
      implements BudgetEvent {}
}
