package dev.supervision.herd;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A cell: an actor that depends on the shared resource. It connects in {@code Behaviors.setup}, so
 * every (re)start calls the resource, and it calls the resource again for every {@link Call}; both
 * throw while the resource is down.
 */
public final class Cell {

  private Cell() {}

  /** What a cell understands. */
  public sealed interface Command permits Call {}

  /** Call the resource once. */
  public enum Call implements Command {
    /** The only instance. */
    INSTANCE
  }

  /**
   * The cell's behavior, to be wrapped by a strategy.
   *
   * @param index the cell's index, reported to the resource with each call
   * @param resource the shared resource
   * @return a {@code Behaviors.setup} that connects on every start
   */
  public static Behavior<Command> create(int index, SimulatedResource resource) {
    return Behaviors.setup(
        ctx -> {
          resource.call(index); // connect: throws while the resource is down
          return Behaviors.receiveMessage(
              call -> {
                resource.call(index);
                return Behaviors.same();
              });
        });
  }
}
