package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.Pacer;
import java.time.Duration;
import java.util.Optional;

/**
 * This library with full jitter and a {@link RestartBudget} shared by the whole herd: {@value
 * Strategies#BUDGET_PER_SECOND} restarts per second, default burst.
 */
final class OursWithBudget extends NamedStrategy {
  private final Ours full;

  OursWithBudget(String id, HerdScenario s) {
    super(
        id,
        "ours, Jitter.full(), "
            + RowSupport.bounds(s)
            + ", budget "
            + Strategies.BUDGET_PER_SECOND
            + "/s");
    this.full = new Ours("full", s, Jitter.full());
  }

  /** The time the budget needs to admit every cell once, at its fixed rate. */
  @Override
  public Duration extraTime(HerdScenario s) {
    return Duration.ofMillis(1000L * s.cells() / Strategies.BUDGET_PER_SECOND);
  }

  /** The real library budget, its period scaled like every other duration of the run. */
  @Override
  public RealRun real(HerdScenario s) {
    RestartBudget.Fixed model = Strategies.budget();
    RestartBudget real =
        RestartBudget.of(
                model.getName(),
                model.getPermits(),
                RowSupport.scaled(model.getPeriod(), s.scale()))
            .withBurst(model.getBurst());
    BackoffPolicy policy = RowSupport.realPolicy(s, Jitter.full()).withBudget(real);
    return (cell, index) -> BackoffSupervisor.wrap(cell, RowSupport.logged(policy, s));
  }

  /**
   * Full jitter's delays, admitted by a model of the library's budget gate: the library's own
   * {@link Pacer} at {@code permits / period} with the budget's burst, driven at the gate's ticks
   * ({@link GateTicks#gateTickNanos}); waiting cells are served in arrival order.
   */
  @Override
  public Optional<ExactRun> exact(HerdScenario s) {
    ExactRun delays = full.exact(s).orElseThrow();
    RestartBudget.Fixed b = Strategies.budget();
    return Optional.of(
        RowSupport.gated(delays, () -> new FixedGate(b, GateTicks.gateTickNanos(s))));
  }
}
