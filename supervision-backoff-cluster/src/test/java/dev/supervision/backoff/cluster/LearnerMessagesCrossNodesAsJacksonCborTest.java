package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.cluster.LearnerProtocol.Granted;
import dev.supervision.backoff.cluster.LearnerProtocol.Report;
import dev.supervision.backoff.cluster.LearnerProtocol.ToNode;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.SerializationTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.jackson.JacksonCborSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The messages between a budget's learner and the nodes go through Pekko's Jackson CBOR serializer
 * (bound by this module's reference.conf, nothing for the user to configure) and come back equal,
 * infinite rates and the lease's durations included.
 */
final class LearnerMessagesCrossNodesAsJacksonCborTest {

  static final ActorTestKit testKit = TestNodes.oneNodeCluster("learner-messages");
  static final SerializationTestKit serialization = new SerializationTestKit(testKit.system());

  @AfterAll
  static void shutdown() {
    ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30));
  }

  private static void assertCborRoundTrip(Object message) {
    assertEquals(
        JacksonCborSerializer.class,
        SerializationExtension.get(testKit.system()).findSerializerFor(message).getClass());
    serialization.verifySerialization(message, true);
  }

  @Test
  void aReportCrossesNodesAsCbor_andComesBackEqual() {
    ActorRef<ToNode> client = testKit.<ToNode>createTestProbe().ref();
    NodeReport report =
        new NodeReport(7, 40, 12, 3, true, 2, List.of(5L, 6L, 6L), State.RAMPING, 123.5);
    assertCborRoundTrip(new Report(client, report));
    assertCborRoundTrip(
        new Report(
            client,
            new NodeReport(
                0, 0, 0, 0, false, 0, List.of(), State.STEADY, Double.POSITIVE_INFINITY)));
  }

  @Test
  void aLeaseCrossesNodesAsCbor_andComesBackEqual() {
    Lease limited =
        new Lease(
            State.HOLDING,
            1,
            true,
            Duration.ofMillis(100),
            Duration.ofMillis(500),
            41,
            0.0,
            5,
            100);
    Lease unlimited =
        new Lease(
            State.STEADY,
            Lease.UNLIMITED,
            false,
            Duration.ofMillis(100),
            Duration.ofMillis(500),
            -1,
            Double.POSITIVE_INFINITY,
            1,
            0);
    for (Lease lease : List.of(limited, unlimited)) {
      assertCborRoundTrip(new Granted(lease));
    }
  }
}
