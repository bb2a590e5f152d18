package dev.supervision.herd;

import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Pekko's {@code SupervisorStrategy.restartWithBackoff(min, max, randomFactor)}. */
final class PekkoBackoff extends NamedStrategy {
  private final double randomFactor;

  PekkoBackoff(String id, HerdScenario s, double randomFactor) {
    super(id, "Pekko restartWithBackoff(" + RowSupport.bounds(s) + ", " + randomFactor + ")");
    this.randomFactor = randomFactor;
  }

  @Override
  public RealRun real(HerdScenario s) {
    SupervisorStrategy strategy =
        SupervisorStrategy.restartWithBackoff(
                RowSupport.realMin(s), RowSupport.realMax(s), randomFactor)
            .withLoggingEnabled(s.logging() != HerdScenario.Logging.OFF);
    return (cell, index) -> Behaviors.supervise(cell).onFailure(strategy);
  }

  /**
   * Models Pekko 1.7.0's {@code RestartSupervisor.calculateDelay}: {@code min(max, min *
   * 2^restartCount) * (1 + u * randomFactor)} with {@code restartCount = attempt - 1}. Pekko draws
   * {@code u} from {@code ThreadLocalRandom}, which cannot be seeded; the model draws it from a
   * seeded generator per cell instead.
   */
  @Override
  public Optional<ExactRun> exact(HerdScenario s) {
    long min = s.minBackoff().toNanos();
    long max = s.maxBackoff().toNanos();
    SplittableRandom[] randoms = new SplittableRandom[s.cells()];
    return Optional.of(
        (index, attempt, failedAt) -> {
          if (randoms[index] == null) {
            randoms[index] = RowSupport.randomFor(s.seed(), index);
          }
          double bound = Math.min(max, min * Math.pow(2, attempt - 1));
          return (long) (bound * (1.0 + randoms[index].nextDouble() * randomFactor));
        });
  }
}
