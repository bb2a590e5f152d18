package dev.supervision.herd;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/** This library: {@code BackoffSupervisor.wrap} with one of the standard jitters. */
final class Ours extends NamedStrategy {
  private final Jitter jitter;

  Ours(String id, HerdScenario s, Jitter jitter) {
    super(id, "ours, Jitter." + id + "(), " + RowSupport.bounds(s));
    this.jitter = jitter;
  }

  @Override
  public RealRun real(HerdScenario s) {
    BackoffPolicy policy = RowSupport.realPolicy(s, jitter);
    return (cell, index) -> BackoffSupervisor.wrap(cell, RowSupport.logged(policy, s));
  }

  /** Draws each cell's delays from the library's own schedule, {@link BackoffPolicy#delays}. */
  @Override
  public Optional<ExactRun> exact(HerdScenario s) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(s.minBackoff(), s.maxBackoff()).withJitter(jitter);
    List<Iterator<Duration>> delays = new ArrayList<>(Collections.nCopies(s.cells(), null));
    return Optional.of(
        (index, attempt, failedAt) -> {
          Iterator<Duration> cell = delays.get(index);
          if (cell == null) {
            cell = policy.delays(RowSupport.randomFor(s.seed(), index)).iterator();
            delays.set(index, cell);
          }
          return cell.next().toNanos();
        });
  }
}
