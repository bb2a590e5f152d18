package dev.supervision.herd;

import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Pekko's {@code SupervisorStrategy.restart()}: no delay at all. */
final class PekkoImmediateRestart extends NamedStrategy {
  PekkoImmediateRestart(String id) {
    super(id, "Pekko restart() (immediate)");
  }

  @Override
  public RealRun real(HerdScenario scenario) {
    return new RealRun() {
      @Override
      public Behavior<Cell.Command> supervise(Behavior<Cell.Command> cell, int index) {
        return Behaviors.supervise(cell)
            .onFailure(
                SupervisorStrategy.restart()
                    .withLoggingEnabled(scenario.logging() != HerdScenario.Logging.OFF));
      }

      @Override
      public Props props() {
        return DispatcherSelector.fromConfig(Strategies.SPIN_DISPATCHER);
      }
    };
  }

  @Override
  public Optional<ExactRun> exact(HerdScenario scenario) {
    return Optional.empty();
  }
}
