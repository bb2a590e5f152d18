package dev.supervision.backoff.cluster;

import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * INTERNAL API: the messages between a cluster-wide adaptive budget's learner ({@link
 * LearnerActor}) and its clients on the nodes ({@link LearnerClient}). The two that cross nodes,
 * {@link Report} and {@link Granted}, carry the core's {@link NodeReport} and {@link Lease} records
 * and are marked {@link Wire}, which this module's {@code reference.conf} binds to Pekko's Jackson
 * CBOR serializer (whose default modules include {@code java.time}'s, for the lease's durations).
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
   * A node's report, sent by its client to the learner.
   *
   * @param replyTo the client, which gets the node's leases; it also names the node to the learner
   * @param report the report
   */
  record Report(ActorRef<ToNode> replyTo, NodeReport report) implements ToLearner, Wire {}

  /**
   * A lease from the learner for one node.
   *
   * @param lease the lease
   */
  record Granted(Lease lease) implements ToNode, Wire {}
}
