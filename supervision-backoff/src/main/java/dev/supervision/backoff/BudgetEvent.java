package dev.supervision.backoff;

import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;

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
 *   <li>{@link CoordinationChanged}: for an adaptive cluster-wide budget, where this node stands
 *       with the budget's learner changed: it took or lost its lease, or the cluster's probe.
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
   * Where this node stands with an adaptive cluster-wide budget's learner changed (published on the
   * node concerned): it took its first lease, lost its lease (it runs its own fallback, {@code 1/N}
   * of the budget, until the next lease), or took or lost the cluster's probe. The share, which
   * follows the cluster's waiting actors every round, is not a reason for an event: {@code
   * RestartBudgets.status} and the Micrometer gauges show it.
   *
   * @param budget the budget's name
   * @param coordinated {@code true} if the node holds a lease from the learner, {@code false} on its
   *     fallback
   * @param prober whether this node's lease carries the cluster's probe
   * @param inView the nodes the learner counted (on the fallback: the members this node counts)
   */
  record CoordinationChanged(String budget, boolean coordinated, boolean prober, int inView)
      implements BudgetEvent {}
}
