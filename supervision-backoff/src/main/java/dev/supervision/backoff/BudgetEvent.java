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
 *   <li>{@link StateChanged}: the budget went from one state to another (steady, holding, ramping).
 *   <li>{@link RateChanged}: the rate it allows changed: a cut to the measured goodput after
 *       failures, the start of ramping, and growth (published each time the rate has grown by a
 *       quarter since the last event).
 *   <li>{@link Probe}: while holding, one restart was let through to test the resource.
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
}
