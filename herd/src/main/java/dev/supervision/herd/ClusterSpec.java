package dev.supervision.herd;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The cluster the adaptive row runs on in exact mode: how many nodes, how the cells are placed on
 * them, how the nodes share the budget, how far the budget's learner is from the nodes, and the
 * membership changes of the run. Immutable and validated.
 *
 * @param nodes the number of nodes, {@code >= 1}; 1 is a single node, today's gate
 * @param skew how the cells are placed
 * @param sharing how the nodes share the budget
 * @param learnerDelay the one-way delay of a lease from the learner to a node and of a report back
 *     ({@link #LEARNER_DELAY}: Artery on a LAN); 0 between the learner and its own node
 * @param leaveAt when the last node leaves gracefully, since the outage began, or {@code null}:
 *     its cells that are not back move to the others, round robin, at once; it is removed from the
 *     membership (and from the learner) {@link #REMOVAL} later
 * @param joinAt when a new node joins, since the outage began, or {@code null}: every node counts
 *     it from then, it registers with the learner by its reports, and {@link #HANDOFF} later (once
 *     it is up and sharding has allocated shards to it) the cells {@code i} with {@code i mod
 *     (nodes + 1) == nodes} that are not back move to it
 * @param learnerLostAt when the learner's node (node 0) crashes, since the outage began, or {@code
 *     null}: from then no lease is sent and its cells call nothing; after {@code handover} it is
 *     downed and removed, its cells that are not back move to the other nodes, round robin, and a
 *     new learner starts on the lowest surviving node
 * @param handover how long after the crash of the learner's node sharding and the learner start
 *     again elsewhere; {@code null} for the default ({@link #defaultHandover})
 */
public record ClusterSpec(
    int nodes,
    Skew skew,
    Sharing sharing,
    Duration learnerDelay,
    Duration leaveAt,
    Duration joinAt,
    Duration learnerLostAt,
    Duration handover) {

  /** The one-way delay between the learner and a node by default: 1 ms, Artery on a LAN. */
  public static final Duration LEARNER_DELAY = Duration.ofMillis(1);

  /**
   * How long after a node leaves it is removed from the membership: the leader's gossip rounds that
   * move a member from leaving through exiting to removed, about 1 s on a LAN with Pekko's defaults.
   */
  public static final Duration REMOVAL = Duration.ofSeconds(1);

  /**
   * How long after a node joins sharding moves shards to it: the leader moves it to up within a
   * gossip round or two, and the shard coordinator rebalances at its next rebalance tick (every 10 s
   * by default, so 2 s is an early case).
   */
  public static final Duration HANDOFF = Duration.ofSeconds(2);

  /**
   * The handover after a crash by default: 25 s with up to 10 nodes, 45 s above. The time from a
   * node's crash until Pekko's split brain resolver, at its defaults, has downed it and sharding and
   * the cluster singleton start its parts on other nodes: the failure detector's few seconds, the
   * resolver's {@code stable-after} (20 s), and for larger clusters the longer margins the resolver
   * takes.
   *
   * @param nodes the number of nodes
   * @return the handover
   */
  public static Duration defaultHandover(int nodes) {
    return Duration.ofSeconds(nodes <= 10 ? 25 : 45);
  }

  /**
   * A cluster in which no node leaves, joins or crashes, with the default learner delay.
   *
   * @param nodes see the record's description
   * @param skew see the record's description
   * @param sharing see the record's description
   */
  public ClusterSpec(int nodes, Skew skew, Sharing sharing) {
    this(nodes, skew, sharing, LEARNER_DELAY, null, null, null, null);
  }

  /** One node. */
  public static final ClusterSpec SINGLE = new ClusterSpec(1, Skew.EVEN, Sharing.COORDINATED);

  /** How the cells are placed on the nodes. */
  public enum Skew {
    /** Cell {@code i} on node {@code i mod N}. */
    EVEN,
    /** Half of the cells on node 0, the rest even over the others. */
    HALF,
    /** Node {@code k} gets a part in proportion to {@code 1 / (k + 1)} (Zipf, exponent 1). */
    ZIPF
  }

  /** How the nodes share the budget. */
  public enum Sharing {
    /** {@code adaptive(..).clusterWide()}: one learner leases permits to every node. */
    COORDINATED,
    /** {@code 1/N} each, every node on its fallback for ever (no learner). */
    SPLIT,
    /** A local {@code adaptive(name)} on every node. */
    LOCAL
  }

  /**
   * Validates the value and sets the default handover.
   *
   * @param nodes see the record's description
   * @param skew see the record's description
   * @param sharing see the record's description
   * @param learnerDelay see the record's description
   * @param leaveAt see the record's description
   * @param joinAt see the record's description
   * @param learnerLostAt see the record's description
   * @param handover see the record's description
   * @throws NullPointerException if skew, sharing or the learner delay is null
   * @throws ScenarioException if {@code nodes} is outside {@code [1, 1000]}, the learner delay, a
   *     leave, join or crash time or the handover is negative, or a node leaves or crashes in a
   *     cluster of one node
   */
  public ClusterSpec {
    Objects.requireNonNull(skew, "skew");
    Objects.requireNonNull(sharing, "sharing");
    Objects.requireNonNull(learnerDelay, "learner-delay");
    ScenarioException.require(nodes >= 1 && nodes <= 1000, "nodes", "in [1, 1000]", nodes);
    ScenarioException.require(
        !learnerDelay.isNegative(), "learner-delay", ">= 0", learnerDelay.toMillis() + "ms");
    if (leaveAt != null) {
      ScenarioException.require(
          !leaveAt.isNegative(), "leave-at", ">= 0", leaveAt.toMillis() + "ms");
      ScenarioException.require(nodes >= 2, "nodes", ">= 2 with --leave-at", nodes);
    }
    if (joinAt != null) {
      ScenarioException.require(!joinAt.isNegative(), "join-at", ">= 0", joinAt.toMillis() + "ms");
    }
    if (learnerLostAt != null) {
      ScenarioException.require(
          !learnerLostAt.isNegative(), "learner-lost-at", ">= 0", learnerLostAt.toMillis() + "ms");
      ScenarioException.require(nodes >= 2, "nodes", ">= 2 with --learner-lost-at", nodes);
    }
    if (handover == null) {
      handover = defaultHandover(nodes);
    }
    ScenarioException.require(
        !handover.isNegative(), "handover", ">= 0", handover.toMillis() + "ms");
  }

  /**
   * The node of every cell.
   *
   * @param cells the number of cells
   * @return one node index per cell
   */
  public int[] placement(int cells) {
    int[] nodeOf = new int[cells];
    switch (skew) {
      case EVEN -> {
        for (int i = 0; i < cells; i++) {
          nodeOf[i] = i % nodes;
        }
      }
      case HALF -> {
        int half = nodes == 1 ? cells : cells / 2;
        for (int i = 0; i < cells; i++) {
          nodeOf[i] = i < half ? 0 : 1 + (i - half) % (nodes - 1);
        }
      }
      case ZIPF -> {
        double h = 0;
        for (int k = 1; k <= nodes; k++) {
          h += 1.0 / k;
        }
        // cells interleaved, so that every node's cells fail and restart across the whole herd
        double[] due = new double[nodes];
        for (int i = 0; i < cells; i++) {
          int best = 0;
          for (int k = 0; k < nodes; k++) {
            due[k] += 1.0 / (k + 1) / h;
            if (due[k] > due[best]) {
              best = k;
            }
          }
          due[best] -= 1;
          nodeOf[i] = best;
        }
      }
    }
    return nodeOf;
  }

  /**
   * How it reads in headers: {@code 10 nodes, even, coordinated}.
   *
   * @return the description
   */
  public String describe() {
    return nodes
        + (nodes == 1 ? " node" : " nodes")
        + ", "
        + skew.name().toLowerCase(Locale.ROOT)
        + ", "
        + sharing.name().toLowerCase(Locale.ROOT)
        + (sharing == Sharing.COORDINATED && !learnerDelay.equals(LEARNER_DELAY)
            ? ", learner " + learnerDelay.toMillis() + " ms away"
            : "")
        + (leaveAt == null ? "" : ", a node leaves at " + leaveAt.toMillis() + " ms")
        + (joinAt == null ? "" : ", a node joins at " + joinAt.toMillis() + " ms")
        + (learnerLostAt == null
            ? ""
            : ", the learner's node crashes at "
                + learnerLostAt.toMillis()
                + " ms (handover "
                + handover.toMillis() / 1000.0
                + " s)");
  }
}
