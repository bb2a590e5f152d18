package dev.supervision.backoff.cluster;

import dev.supervision.backoff.cluster.LearnerProtocol.Granted;
import dev.supervision.backoff.cluster.LearnerProtocol.Report;
import dev.supervision.backoff.cluster.LearnerProtocol.ToLearner;
import dev.supervision.backoff.cluster.LearnerProtocol.ToNode;
import dev.supervision.backoff.rate.NodeReport;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * INTERNAL API: a cluster-wide adaptive budget's link to its learner on one node, a child of the
 * budget's gate. It holds the learner's singleton proxy ({@link LearnerActor#init}).
 *
 * <ul>
 *   <li>On a lease from the learner ({@link Granted}) it tells the gate {@link
 *       GateProtocol.GrantLease}, then asks it for its report ({@link GateProtocol.CollectReport})
 *       and sends the report to the learner at once: each round's report answers that round's lease
 *       (the gate takes the two messages in that order).
 *   <li>When no lease has come for {@link #silence} (a round and a half): at its start, when the
 *       learner is lost or handed over, it collects and sends a report anyway, again every such
 *       silence, so that a learner hears of the node (registration) and leases to it.
 * </ul>
 *
 * <p>Its only clock is a Pekko timer; it decides nothing: the gate's {@link
 * dev.supervision.backoff.rate.LeaseHolder} falls back on {@code 1/N} of the budget when its lease
 * expires.
 */
final class LearnerClient {

  private LearnerClient() {}

  /** The silence timer: no lease for a round and a half. */
  private enum Silence implements ToNode {
    INSTANCE
  }

  /** The gate's report, to send on. */
  private record Collected(NodeReport report) implements ToNode {}

  /**
   * How long the client waits for a lease before it reports anyway: a round and a half, so that a
   * lease that comes a little late on a busy machine is not answered twice.
   *
   * @param round the learner's round
   * @return the silence
   */
  static Duration silence(Duration round) {
    return round.plus(round.dividedBy(2));
  }

  /**
   * The client's behavior.
   *
   * @param budgetName the budget's name (for the log)
   * @param gate the budget's gate on this node
   * @param learner the learner's singleton proxy
   * @param round the learner's round
   * @return the behavior
   */
  static Behavior<ToNode> create(
      String budgetName,
      ActorRef<GateProtocol.Command> gate,
      ActorRef<ToLearner> learner,
      Duration round) {
    Duration silence = silence(round);
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> {
                  ctx.setLoggerName(LearnerClient.class);
                  ActorRef<NodeReport> reports =
                      ctx.messageAdapter(NodeReport.class, Collected::new);
                  // register with the learner at once
                  gate.tell(new GateProtocol.CollectReport(reports));
                  timers.startSingleTimer(Silence.INSTANCE, silence);
                  boolean[] leased = {false};
                  return Behaviors.receive(ToNode.class)
                      .onMessage(
                          Granted.class,
                          g -> {
                            if (!leased[0]) {
                              leased[0] = true;
                              ctx.getLog()
                                  .debug(
                                      "Restart budget [{}]: a lease from the learner", budgetName);
                            }
                            gate.tell(new GateProtocol.GrantLease(g.lease()));
                            gate.tell(new GateProtocol.CollectReport(reports));
                            timers.startSingleTimer(Silence.INSTANCE, silence);
                            return Behaviors.same();
                          })
                      .onMessage(
                          Collected.class,
                          c -> {
                            learner.tell(new Report(ctx.getSelf(), c.report()));
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          Silence.INSTANCE,
                          () -> {
                            if (leased[0]) {
                              leased[0] = false;
                              ctx.getLog()
                                  .debug(
                                      "Restart budget [{}]: no lease from the learner for {};"
                                          + " reporting to register",
                                      budgetName,
                                      silence);
                            }
                            gate.tell(new GateProtocol.CollectReport(reports));
                            timers.startSingleTimer(Silence.INSTANCE, silence);
                            return Behaviors.same();
                          })
                      .build();
                }));
  }
}
