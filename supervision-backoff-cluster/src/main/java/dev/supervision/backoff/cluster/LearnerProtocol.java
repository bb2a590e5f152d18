package dev.supervision.backoff.cluster;

import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.Lease;
import dev.supervision.backoff.spi.NodeReport;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * INTERNAL API: the messages between a cluster-wide adaptive budget's learner ({@link
 * LearnerActor}) and its clients on the nodes ({@link LearnerClient}). The two that cross nodes,
 * {@link Report} and {@link Granted}, are records of plain fields marked {@link Wire}, which this
 * module's {@code reference.conf} binds to Pekko's Jackson CBOR serializer; durations travel as
 * nanoseconds (no Jackson module for {@code java.time} is needed).
 */
final class LearnerProtocol {

  private LearnerProtocol() {}

  /** Marks the messages that cross nodes; bound to {@code jackson-cbor} in reference.conf. */
  interface Wire {}

  /** What the learner actor understands. */
  interface ToLearner {}

  /** What a node's client understands. */
  interface ToNode {}

  /**
   * A node's {@link NodeReport}, sent by its client to the learner.
   *
   * @param replyTo the client, which gets the node's leases; it also names the node to the learner
   * @param sequence see {@link NodeReport}
   * @param waiting see {@link NodeReport}
   * @param uncovered see {@link NodeReport}
   * @param started see {@link NodeReport}
   * @param probeStarted see {@link NodeReport}
   * @param failedNotGranted see {@link NodeReport}
   * @param failedStartedIn see {@link NodeReport}
   * @param state see {@link NodeReport}
   * @param rate see {@link NodeReport}
   */
  record Report(
      ActorRef<ToNode> replyTo,
      long sequence,
      int waiting,
      int uncovered,
      int started,
      boolean probeStarted,
      int failedNotGranted,
      List<Long> failedStartedIn,
      State state,
      double rate)
      implements ToLearner, Wire {

    static Report of(ActorRef<ToNode> replyTo, NodeReport r) {
      return new Report(
          replyTo,
          r.sequence(),
          r.waiting(),
          r.uncovered(),
          r.started(),
          r.probeStarted(),
          r.failedNotGranted(),
          r.failedStartedIn(),
          r.state(),
          r.rate());
    }

    NodeReport toNodeReport() {
      return new NodeReport(
          sequence,
          waiting,
          uncovered,
          started,
          probeStarted,
          failedNotGranted,
          failedStartedIn == null ? List.of() : failedStartedIn,
          state,
          rate);
    }
  }

  /**
   * A {@link Lease} from the learner for one node, durations in nanoseconds.
   *
   * @param state see {@link Lease}
   * @param permits see {@link Lease}
   * @param probe see {@link Lease}
   * @param roundNanos the lease's round
   * @param validForNanos the lease's validity
   * @param acknowledged see {@link Lease}
   * @param learnerRate see {@link Lease}
   * @param inView see {@link Lease}
   * @param clusterWaiting see {@link Lease}
   */
  record Granted(
      State state,
      int permits,
      boolean probe,
      long roundNanos,
      long validForNanos,
      long acknowledged,
      double learnerRate,
      int inView,
      long clusterWaiting)
      implements ToNode, Wire {

    static Granted of(Lease l) {
      return new Granted(
          l.state(),
          l.permits(),
          l.probe(),
          l.round().toNanos(),
          l.validFor().toNanos(),
          l.acknowledged(),
          l.learnerRate(),
          l.inView(),
          l.clusterWaiting());
    }

    Lease toLease() {
      return new Lease(
          state,
          permits,
          probe,
          Duration.ofNanos(roundNanos),
          Duration.ofNanos(validForNanos),
          acknowledged,
          learnerRate,
          inView,
          clusterWaiting);
    }
  }
}
