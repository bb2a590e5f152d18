package dev.supervision.backoff.testsupport;

import dev.supervision.backoff.spi.GateProtocol;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A stand-in for a supervised actor in front of a budget's gate: on each grant it tells the gate
 * that its restarted behavior has started ({@link GateProtocol.Started}), as the supervisor does,
 * then hands the grant to the test.
 */
public final class StartingRequester {

  private StartingRequester() {}

  /**
   * The requester's behavior.
   *
   * @param gate the gate it is granted by
   * @param grant the grant signal's class
   * @param granted told each grant, after the gate was told the start
   * @param <G> the grant signal's type
   * @return the behavior
   */
  public static <G extends Signal> Behavior<Object> create(
      org.apache.pekko.actor.typed.ActorRef<GateProtocol.Command> gate,
      Class<G> grant,
      Consumer<G> granted) {
    return Behaviors.setup(
        ctx ->
            Behaviors.receive(Object.class)
                .onSignal(
                    grant,
                    g -> {
                      gate.tell(new GateProtocol.Started(ctx.getSelf()));
                      granted.accept(g);
                      return Behaviors.same();
                    })
                .build());
  }
}
