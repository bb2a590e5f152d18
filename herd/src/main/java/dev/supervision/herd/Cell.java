package dev.supervision.herd;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A cell: an actor that depends on the shared resource. It connects in {@code Behaviors.setup}, so
 * every (re)start calls the resource, and it queries the resource for every {@link Call}. Connecting
 * throws while the resource is down; a query throws then too, and also when its connection was made
 * before the outage struck.
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
          int connection = resource.connect(index); // throws while the resource is down
          return Behaviors.receiveMessage(
              call -> {
                resource.query(index, connection); // throws if the connection broke
                return Behaviors.same();
              });
        });
  }
}
