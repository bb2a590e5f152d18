package dev.supervision.backoff.internal;

import static dev.supervision.backoff.testsupport.Gates.forwarding;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.GateProtocol;
import dev.supervision.backoff.spi.GateProtocol.Acquire;
import dev.supervision.backoff.spi.GateProtocol.Coordinate;
import dev.supervision.backoff.spi.GateProtocol.Failed;
import dev.supervision.backoff.testsupport.Gates.Grant;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An adaptive gate told by the cluster's coordination that another node probes does not probe while
 * holding, and starts ramping at its share of the initial rate when told another node found the
 * resource back, and takes the rate the coordination passes on while ramping.
 */
final class AdaptiveGateFollowsTheClusterCoordinationTest {

  private static final ActorTestKit kit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(kit.system());

  @AfterAll
  static void shutdown() {
    kit.shutdownTestKit();
  }

  @Test
  void aNodeThatDoesNotProbe_grantsNothingWhileHolding_untilAnotherFindsTheResourceBack() {
    String name = "coordinated-gate";
    TestProbe<BudgetEvent> events = kit.createTestProbe();
    ActorRef<BudgetEvent> filter =
        kit.spawn(
            Behaviors.receive(BudgetEvent.class)
                .onAnyMessage(
                    e -> {
                      if (e instanceof BudgetEvent.StateChanged && e.budget().equals(name)) {
                        events.ref().tell(e);
                      }
                      return Behaviors.same();
                    })
                .build());
    kit.system().eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, filter));
    TestProbe<String> granted = kit.createTestProbe();
    ActorRef<Object> requester = forwarding(kit, granted);
    ActorRef<GateProtocol.Command> gate =
        kit.spawn(BudgetGate.create(RestartBudget.adaptive(name).withHoldAfter(2), 1));
    TestProbe<GateProtocol.Status> status = kit.createTestProbe();
    gate.tell(new GateProtocol.Query(status.ref()));
    assertEquals(Optional.empty(), status.receiveMessage().coordination(), "no decision yet");
    gate.tell(new Coordinate(new Decision(true, 0.5, false, 1, false, Double.NaN, 0, false, 1, 0)));
    gate.tell(new GateProtocol.Query(status.ref()));
    assertEquals(
        Optional.of(new GateProtocol.Coordination(true, 0.5, false, 1, 0)),
        status.receiveMessage().coordination(),
        "coordinated, half of the budget, another node probes");
    gate.tell(new Failed(requester));
    gate.tell(new Failed(requester));
    assertEquals(
        new BudgetEvent.StateChanged(name, State.STEADY, State.HOLDING, Reason.FAILURES),
        events.receiveMessage());
    gate.tell(new Acquire(requester, new Grant("waiting")));
    TestProbe<Integer> waiting = kit.createTestProbe();
    gate.tell(new GateProtocol.Waiting(waiting.ref()));
    assertEquals(1, waiting.receiveMessage());
    // one node alone would have probed 100 ms after holding, then every 300-400 ms
    time.timePasses(Duration.ofSeconds(3));
    granted.expectNoMessage(Duration.ofMillis(300));
    gate.tell(new Coordinate(new Decision(true, 0.5, false, 1, true, Double.NaN, 1, false, 1, 0)));
    assertEquals(
        new BudgetEvent.StateChanged(name, State.HOLDING, State.RAMPING, Reason.RESUMED),
        events.receiveMessage());
    gate.tell(new GateProtocol.Query(status.ref()));
    assertEquals(50, status.receiveMessage().rate(), 1e-9, "half of the initial 100/s");
    time.timePasses(Duration.ofMillis(200));
    assertEquals("waiting", granted.receiveMessage());
    // the cluster passes on the goodput freed by other nodes: a ramping node takes the rate it is
    // told
    gate.tell(new Coordinate(new Decision(true, 0.5, false, 1, false, 5000, 1, false, 1, 0)));
    gate.tell(new GateProtocol.Query(status.ref()));
    assertEquals(5000, status.receiveMessage().rate(), 1e-9, "the rate the coordination passed on");
    // the coordination is lost: on its local fallback, a third of the budget, probing itself
    gate.tell(
        new Coordinate(new Decision(false, 1.0 / 3, true, 3, false, Double.NaN, 1, false, 1, 0)));
    gate.tell(new GateProtocol.Query(status.ref()));
    assertEquals(
        Optional.of(new GateProtocol.Coordination(false, 1.0 / 3, true, 1, 0)),
        status.receiveMessage().coordination());
  }
}
