package dev.supervision.herd;

import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;

/**
 * One row of the herd table: a way to supervise the cells. Add a row by adding an implementation to
 * {@link Strategies#standard(HerdScenario)}; nothing else needs to change.
 *
 * <p>A strategy is asked once per run for a fresh {@link RealRun} or {@link ExactRun}, so a strategy
 * that shares state between its cells (a restart budget for the whole herd, say) creates that state
 * there and never carries it from one run to the next.
 */
public interface HerdStrategy {

  /**
   * The id used on the command line and in {@code results.json}, for example {@code full}.
   *
   * @return a short, unique, lower-case id
   */
  String id();

  /**
   * What the strategy is, in words, for the table and the chart's legend.
   *
   * @return a one-line description, for example {@code Pekko restartWithBackoff(100ms, 20s, 0.2)}
   */
  String description();

  /**
   * Prepares one real-mode run: called once, before the cells are spawned.
   *
   * @param scenario the scenario, with durations already in model time; multiply by {@link
   *     HerdScenario#scale()} to get the real durations to give Pekko
   * @return how to supervise and spawn each cell of this run
   */
  RealRun real(HerdScenario scenario);

  /**
   * Prepares one exact-mode (discrete-event) run, if the strategy has an exact model.
   *
   * @param scenario the scenario
   * @return the model, or empty if the strategy's timing cannot be modelled exactly (Pekko's
   *     immediate restart: its calls depend on how fast the machine spins, not on a clock)
   */
  Optional<ExactRun> exact(HerdScenario scenario);

  /** How a real-mode run supervises and spawns its cells. */
  interface RealRun {

    /**
     * Wraps one cell in this strategy's supervision.
     *
     * @param cell the cell's behavior; a {@code Behaviors.setup} that connects to the resource
     * @param index the cell's index, {@code 0 <= index < cells}
     * @return the supervised behavior to spawn
     */
    Behavior<Cell.Command> supervise(Behavior<Cell.Command> cell, int index);

    /**
     * The props the cells are spawned with, for example a dispatcher of their own.
     *
     * @return the props; {@link Props#empty()} by default
     */
    default Props props() {
      return Props.empty();
    }
  }

  /** How an exact-mode run times the restarts of its cells. */
  interface ExactRun {

    /**
     * The delay before the next restart of a cell that has just failed. Called in event order (by
     * time, then by cell index), so a model may keep state shared by the whole herd.
     *
     * @param index the cell's index
     * @param attempt the restart attempt this delay is for, 1 for the first restart after the outage
     *     struck
     * @param failedAtNanos when the cell failed, in model nanoseconds since the outage began
     * @return the delay in nanoseconds, {@code >= 0}
     */
    long restartDelayNanos(int index, int attempt, long failedAtNanos);

    /**
     * When a cell whose delay has passed may actually restart: the hook for a limit shared by the
     * whole herd, such as a restart budget. Called in event order, once per restart, at the time
     * the delay ends.
     *
     * @param index the cell's index
     * @param dueNanos when the cell's delay ended, in model nanoseconds since the outage began
     * @return when it restarts, {@code >= dueNanos}; {@code dueNanos} by default (no limit)
     */
    default long admitNanos(int index, long dueNanos) {
      return dueNanos;
    }
  }
}
