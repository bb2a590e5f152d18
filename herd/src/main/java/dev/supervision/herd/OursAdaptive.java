package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.Pacer;
import java.util.Optional;

/**
 * This library with full jitter and an adaptive restart budget, which is not told the resource's
 * capacity: {@code RestartBudget.adaptive} in real mode. In exact mode the library's own {@link
 * AdaptiveRateController} decides and its own {@link Pacer} spreads the grants, driven as the
 * budget's gate drives them (see {@link AdaptiveGate}).
 */
final class OursAdaptive extends NamedStrategy {
  private final Ours full;

  OursAdaptive(String id, HerdScenario s) {
    super(id, "ours, Jitter.full(), " + RowSupport.bounds(s) + ", adaptive budget");
    this.full = new Ours("full", s, Jitter.full());
  }

  /**
   * The real library budget, {@code RestartBudget.adaptive}, with its defaults. Its control slice
   * (100 ms of real time) is not scaled: at {@code --scale 0.5} it spans 200 ms of model time.
   */
  @Override
  public RealRun real(HerdScenario s) {
    BackoffPolicy policy =
        RowSupport.realPolicy(s, Jitter.full()).withBudget(RestartBudget.adaptive("herd-adaptive"));
    return (cell, index) -> BackoffSupervisor.wrap(cell, RowSupport.logged(policy, s));
  }

  /**
   * With the learner's node lost, the handover on top: its cells cannot be back before it ends.
   */
  @Override
  public java.time.Duration extraTime(HerdScenario s) {
    ClusterSpec c = s.cluster();
    return c.learnerLostAt() == null
        ? java.time.Duration.ZERO
        : c.learnerLostAt().plus(c.handover());
  }

  @Override
  public Optional<ExactRun> exact(HerdScenario s) {
    ExactRun delays = full.exact(s).orElseThrow();
    return Optional.of(RowSupport.gated(delays, () -> gate(s)));
  }

  /** A fresh gate: the cluster's model on more than one node, one node's gate otherwise. */
  private static HerdStrategy.ExactGate gate(HerdScenario s) {
    if (s.cluster().nodes() > 1 || s.cluster().joinAt() != null) {
      return new ClusterGate(
          AdaptiveRateController.Parameters.defaults(),
          s.cluster(),
          s.cells(),
          GateTicks.gateTickNanos(s));
    }
    return new AdaptiveGate(
        new AdaptiveRateController(AdaptiveRateController.Parameters.defaults()),
        s.cells(),
        GateTicks.gateTickNanos(s));
  }
}
