package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A node's line shows the state the round's decision left its gate in, not the state the round
 * decided on: a node that a decision resumes, or whose rate it raises, says so to the others in
 * the same round (as the herd's exact mode models it), not a round later.
 *
 * <p>The coordination runs against a scripted gate on a cluster of one node: the gate holds with
 * actors waiting until it receives its first decision, and from then on is steady with nothing
 * waiting (a quiet state, which is not written again once written). If the coordination published
 * what it decided on, its first line would say {@code HOLDING} and a second one {@code STEADY};
 * publishing what the decision left, its first and only line says {@code STEADY}.
 */
final class ALineShowsTheStateItsRoundsDecisionLeftTest {

  static final ActorTestKit testKit = TestNodes.oneNodeCluster("line-after-decision");
  static final String NAME = "line-after-decision-db";

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  /** Holds with 3 actors waiting until the first decision; steady with none after it. */
  static Behavior<GateProtocol.Command> scriptedGate(AtomicInteger decisions) {
    return Behaviors.receive(GateProtocol.Command.class)
        .onMessage(
            GateProtocol.Coordinate.class,
            c -> {
              decisions.incrementAndGet();
              return Behaviors.same();
            })
        .onMessage(
            GateProtocol.Query.class,
            q -> {
              boolean decided = decisions.get() > 0;
              q.replyTo()
                  .tell(
                      new GateProtocol.Status(
                          NAME,
                          decided ? State.STEADY : State.HOLDING,
                          decided ? Double.POSITIVE_INFINITY : 0,
                          Double.NaN,
                          decided ? 0 : 3,
                          Optional.empty()));
              return Behaviors.same();
            })
        .build();
  }

  @Test
  void theFirstLineAlreadyShowsTheStateTheFirstDecisionLeft() throws Exception {
    AtomicInteger decisions = new AtomicInteger();
    ActorRef<GateProtocol.Command> gate = testKit.spawn(scriptedGate(decisions), "gate");
    testKit.spawn(ReplicatedCoordination.create(NAME, gate), "coordination");
    String self =
        Long.toString(Cluster.get(testKit.system()).selfMember().uniqueAddress().longUid());

    TestNodes.await(
        Duration.ofSeconds(30),
        () -> {
          try {
            return TestNodes.coordinationLines(testKit.system(), NAME).containsKey(self);
          } catch (Exception e) {
            return false;
          }
        });
    String first = TestNodes.coordinationLines(testKit.system(), NAME).get(self);
    // a few more rounds (200 ms each) decide on the steady state; a quiet, unchanged line is not
    // written again, so the line read now is the last one written
    int seen = decisions.get();
    TestNodes.await(Duration.ofSeconds(30), () -> decisions.get() >= seen + 5);
    Map<String, String> lines = TestNodes.coordinationLines(testKit.system(), NAME);
    String line = lines.get(self);
    assertEquals(first, line, "the line was written again");
    Report report = ReplicatedCoordination.decode(0, line);
    assertEquals(State.STEADY, report.state(), line);
    assertEquals(0, report.waiting(), line);
    // the entry's fifth field counts the node's writes: one, so no HOLDING line came before it
    assertEquals("1", line.split(" ")[4], line);
    assertTrue(
        decisions.get() >= 6,
        "the coordination went on deciding (the await above ensures it): " + decisions.get());
  }
}
