package dev.supervision.backoff;

import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;

/**
 * What an adaptive {@link RestartBudget} did, published on the actor system's event stream ({@code
 * EventStream.Subscribe<>(BudgetEvent.class, monitor)}). The permitted records are the whole
 * vocabulary.
 */
public sealed interface BudgetEvent {

  /** {@return the budget's name} */
  String budget();

  /**
   * The budget's gate started, {@code STEADY} and without a limit: the first actor that uses the
   * budget started, or one needed it again after its gate stopped or was {@linkplain
   * RestartBudgets#release(String) released} (a new gate learns again). Before any other event of
   * that gate.
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
   * Where this node stands with an adaptive cluster-wide budget's learner changed: it took its
   * first lease, lost its lease (and runs on its fallback, {@code 1/N} of the budget), or took or
   * lost the cluster's probe. Share changes are no event: {@code RestartBudgets.status} shows them.
   *
   * @param budget the budget's name
   * @param coordinated {@code true} if the node holds a lease from the learner, {@code false} on
   *     its fallback
   * @param prober whether this node's lease carries the cluster's probe
   * @param inView the nodes the learner counted (on the fallback: the members this node counts)
   */
  record CoordinationChanged(String budget, boolean coordinated, boolean prober, int inView)
      implements BudgetEvent {}
}
