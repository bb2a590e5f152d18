package dev.supervision.herd;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The cluster the adaptive row runs on in exact mode: how many nodes, how the cells are placed on
 * them, how the nodes share the budget, and how fast Distributed Data spreads a node's report.
 * Immutable and validated.
 *
 * @param nodes the number of nodes, {@code >= 1}; 1 is a single node, today's gate
 * @param skew how the cells are placed
 * @param sharing how the nodes share the budget
 * @param deltaInterval Distributed Data's delta propagation interval (Pekko's default: the gossip
 *     interval of 2 s divided by 5, 400 ms)
 * @param leaveAt when the last node leaves gracefully, since the outage began, or {@code null}:
 *     its shards (its cells that are not back) move to the others, round robin, at once; it is
 *     removed from the membership {@link #REMOVAL} later
 * @param joinAt when a new node joins, since the outage began, or {@code null}: every node counts it
 *     from then, it writes its first (quiet) line then, and {@link #HANDOFF} later (once it is up
 *     and sharding has allocated shards to it) the cells {@code i} with {@code i mod (nodes + 1) ==
 *     nodes} that are not back move to it
 * @param startedEvery how far apart the nodes' replicators were started, one after another, node 0
 *     first ({@link Duration#ZERO}: all in the same delta tick). Pekko's
 *     replicator sends its deltas to a slice of the other nodes, round robin over their sorted
 *     list, from a counter that grows by the slice size on every delta tick since the replicator
 *     started: nodes started in the same tick are at the same place of the round robin, so every
 *     node hears every other node in the same tick and then from none for the rest of the round;
 *     nodes started ticks apart are at different places, and a node hears the others spread over
 *     the ticks
 * @param notifyInterval Distributed Data's subscriber notification interval (Pekko's default:
 *     500 ms): a node hears of what its replicator received at its next notification, and the
 *     coordination's round and its hold-off after a loss follow it, as on a real node
 */
public record ClusterSpec(
    int nodes,
    Skew skew,
    Sharing sharing,
    Duration deltaInterval,
    Duration leaveAt,
    Duration joinAt,
    Duration startedEvery,
    Duration notifyInterval) {

  /** Pekko's subscriber notification interval: 500 ms. */
  public static final Duration NOTIFY_INTERVAL = Duration.ofMillis(500);

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
   * A cluster in which no node leaves or joins.
   *
   * @param nodes see the record's description
   * @param skew see the record's description
   * @param sharing see the record's description
   * @param deltaInterval see the record's description
   */
  public ClusterSpec(int nodes, Skew skew, Sharing sharing, Duration deltaInterval) {
    this(nodes, skew, sharing, deltaInterval, null, null);
  }

  /**
   * A cluster whose replicators all started in the same delta tick, with Pekko's notification
   * interval.
   *
   * @param nodes see the record's description
   * @param skew see the record's description
   * @param sharing see the record's description
   * @param deltaInterval see the record's description
   * @param leaveAt see the record's description
   * @param joinAt see the record's description
   */
  public ClusterSpec(
      int nodes,
      Skew skew,
      Sharing sharing,
      Duration deltaInterval,
      Duration leaveAt,
      Duration joinAt) {
    this(nodes, skew, sharing, deltaInterval, leaveAt, joinAt, Duration.ZERO, NOTIFY_INTERVAL);
  }

  /**
   * How many delta ticks after node 0's replicator node {@code node}'s started: {@code floor(node x
   * startedEvery / deltaInterval)}.
   *
   * @param node the node's index
   * @return the ticks, {@code >= 0}
   */
  public long startTicks(int node) {
    return startedEvery.toNanos() * node / deltaInterval.toNanos();
  }

  /** One node. */
  public static final ClusterSpec SINGLE =
      new ClusterSpec(1, Skew.EVEN, Sharing.COORDINATED, Duration.ofMillis(400));

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
    /** {@code adaptive(..).clusterWide()}: coordinated through Distributed Data. */
    COORDINATED,
    /** {@code 1/N} each, every node learning alone (no coordination). */
    SPLIT,
    /** A local {@code adaptive(name)} on every node. */
    LOCAL
  }

  /**
   * Validates the value.
   *
   * @param nodes see the record's description
   * @param skew see the record's description
   * @param sharing see the record's description
   * @param deltaInterval see the record's description
   * @param leaveAt see the record's description
   * @param joinAt see the record's description
   * @param startedEvery see the record's description
   * @param notifyInterval see the record's description
   * @throws NullPointerException if skew, sharing, an interval or the start span is null
   * @throws ScenarioException if {@code nodes} is outside {@code [1, 1000]}, an interval is not
   *     positive, a leave or join time or the start span is negative, or a node leaves a cluster of
   *     one node
   */
  public ClusterSpec {
    Objects.requireNonNull(skew, "skew");
    Objects.requireNonNull(sharing, "sharing");
    Objects.requireNonNull(deltaInterval, "delta-interval");
    Objects.requireNonNull(startedEvery, "started-every");
    Objects.requireNonNull(notifyInterval, "notify-interval");
    ScenarioException.require(
        !notifyInterval.isNegative() && !notifyInterval.isZero(),
        "notify-interval",
        "> 0",
        notifyInterval.toMillis() + "ms");
    ScenarioException.require(
        !startedEvery.isNegative(), "started-every", ">= 0", startedEvery.toMillis() + "ms");
    ScenarioException.require(nodes >= 1 && nodes <= 1000, "nodes", "in [1, 1000]", nodes);
    ScenarioException.require(
        !deltaInterval.isNegative() && !deltaInterval.isZero(),
        "delta-interval",
        "> 0",
        deltaInterval.toMillis() + "ms");
    if (leaveAt != null) {
      ScenarioException.require(
          !leaveAt.isNegative(), "leave-at", ">= 0", leaveAt.toMillis() + "ms");
      ScenarioException.require(nodes >= 2, "nodes", ">= 2 with --leave-at", nodes);
    }
    if (joinAt != null) {
      ScenarioException.require(!joinAt.isNegative(), "join-at", ">= 0", joinAt.toMillis() + "ms");
    }
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
        + (leaveAt == null ? "" : ", a node leaves at " + leaveAt.toMillis() + " ms")
        + (joinAt == null ? "" : ", a node joins at " + joinAt.toMillis() + " ms")
        + (startedEvery.isZero()
            ? ""
            : ", replicators started " + startedEvery.toMillis() + " ms apart");
  }
}
