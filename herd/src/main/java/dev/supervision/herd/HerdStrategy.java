package dev.supervision.herd;

import java.time.Duration;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;

/**
 * One row of the herd table: a way to supervise the cells. Add a row by adding one entry to {@link
 * Strategies#REGISTRY}; nothing else needs to change.
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

  /**
   * How much longer than the scenario's horizon this row may need, for example the time a fixed
   * restart budget needs to admit every cell.
   *
   * @param scenario the scenario
   * @return the extra model time; zero by default
   */
  default Duration extraTime(HerdScenario scenario) {
    return Duration.ZERO;
  }

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
    /**
     * The behavior of one cell: by default the herd's {@link Cell} under {@link #supervise}. A row
     * whose cells are not supervised actors (the stream rows) builds its own.
     *
     * @param index the cell's index
     * @param resource the resource the cell calls
     * @return the behavior to spawn
     */
    default Behavior<Cell.Command> cell(int index, SimulatedResource resource) {
      return supervise(Cell.create(index, resource), index);
    }

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
     * The gate that decides when a cell whose delay has passed may actually restart: the hook for
     * a limit shared by the whole herd, such as a restart budget. Called once per run.
     *
     * @return the gate; {@link ExactGate#OPEN} (no limit) by default
     */
    default ExactGate gate() {
      return ExactGate.OPEN;
    }
  }

  /**
   * A herd-wide gate in exact mode. Every method is called in event order, so a gate may keep
   * state shared by the whole herd. The simulation wakes the gate at the time it asks for.
   */
  interface ExactGate {

    /** No gate: every cell restarts as soon as its delay has passed. */
    ExactGate OPEN =
        new ExactGate() {
          @Override
          public boolean offer(int cell, long nowNanos) {
            return true;
          }

          @Override
          public long nextWakeNanos() {
            return Long.MAX_VALUE;
          }

          @Override
          public void wake(long nowNanos, IntConsumer release) {}
        };

    /**
     * A cell's delay has passed.
     *
     * @param cell the cell's index
     * @param nowNanos the time, in model nanoseconds since the outage began
     * @return {@code true} if it restarts now; {@code false} if it waits until a {@link #wake}
     *     releases it
     */
    boolean offer(int cell, long nowNanos);

    /**
     * When the gate wants to be woken next.
     *
     * @return a time in model nanoseconds, or {@code Long.MAX_VALUE} for never
     */
    long nextWakeNanos();

    /**
     * Wakes the gate; it may release waiting cells, which restart at once, in release order.
     *
     * @param nowNanos the time
     * @param release called with each released cell's index
     */
    void wake(long nowNanos, IntConsumer release);

    /**
     * A cell failed: when the outage struck, or when a restart's call failed; nothing by default.
     * Successes are not reported: a gate that learns from outcomes infers them (no failure within
     * its probation), as the library's adaptive budget does.
     *
     * @param cell the cell's index
     * @param nowNanos the time
     */
    default void failed(int cell, long nowNanos) {}
  }
}
