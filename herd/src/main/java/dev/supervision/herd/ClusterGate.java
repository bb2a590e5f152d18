package dev.supervision.herd;

import dev.supervision.backoff.spi.AdaptiveRateController;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.IntConsumer;

/**
 * The exact model of an adaptive budget on a cluster of nodes. Every node runs what the one-node
 * exact mode runs (its own {@link AdaptiveGate}: the production controller and pacer,
 * driven as the gate drives them), on the cells placed on it. With {@link
 * ClusterSpec.Sharing#COORDINATED} the nodes coordinate through the production {@link
 * ClusterCoordinator}, as the cluster module's coordination does: every 200 ms each node decides
 * from the reports it has received and publishes its own, and a report reaches another node after
 * the delay Pekko Distributed Data takes with its defaults (see {@link #publish}).
 */
final class ClusterGate implements HerdStrategy.ExactGate {

  private static final long ROUND = 200_000_000L; // ReplicatedCoordination.ROUND
  private static final long HEARTBEAT = 1_000_000_000L; // ReplicatedCoordination.HEARTBEAT
  private static final long STALE_AFTER = 8_000_000_000L; // ReplicatedCoordination.STALE_AFTER
  private static final long NOTIFY = 500_000_000L; // notify-subscribers-interval
  private static final long LATENCY = 1_000_000L; // one way, on a LAN

  /** What the run records per node. */
  static final class NodeFigures {
    int cells;
    int grants;
    int probes;
    final List<String> stateChanges = new ArrayList<>();
  }

  private record Delivery(long atNanos, int to, Report report) implements Comparable<Delivery> {
    @Override
    public int compareTo(Delivery o) {
      int t = Long.compare(atNanos, o.atNanos);
      return t != 0 ? t : Integer.compare(to, o.to);
    }
  }

  private final class Node implements AdaptiveRateController.Listener {
    final int id;
    final AdaptiveGate gate;
    final Heard[] heard;
    final NodeFigures figures = new NodeFigures();
    long wakeAt = Long.MAX_VALUE;
    long back;
    long heldAt;
    long heldSince;
    boolean resuming;
    String published;
    long publishedAt = Long.MIN_VALUE;
    long publishedBack;

    Node(int id, AdaptiveRateController.Parameters p, int cells, long tick) {
      this.id = id;
      this.gate = new AdaptiveGate(new AdaptiveRateController(p, this), cells, tick);
      this.heard = new Heard[nodes.length];
    }

    AdaptiveRateController controller() {
      return gate.controller();
    }

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      figures.stateChanges.add(nowNanos / 1_000_000 + " ms " + from + " -> " + to + " " + reason);
      if (to == State.HOLDING) {
        heldAt = back;
        heldSince = nowNanos;
      } else if (from == State.HOLDING && to == State.RAMPING && !resuming) {
        back = ClusterCoordinator.nextBackEpoch(back); // this node's own probe survived
      }
    }

    @Override
    public void probe(int probes, long nowNanos) {
      figures.probes++;
    }

    Report report() {
      AdaptiveRateController c = controller();
      return new Report(id, c.state(), gate.waitingCount(), Math.max(0, c.rate()), back);
    }
  }

  private final Node[] nodes;
  private final int[] nodeOf;
  private final boolean coordinated;
  private final long deltaTick;
  private final ClusterCoordinator coordinator;
  private final PriorityQueue<Delivery> deliveries = new PriorityQueue<>();
  private long now;
  private long nextRound;

  /**
   * A cluster gate.
   *
   * @param parameters every node's controller parameters
   * @param spec the cluster
   * @param cells the number of cells
   * @param tickNanos the gate's tick
   */
  ClusterGate(
      AdaptiveRateController.Parameters parameters, ClusterSpec spec, int cells, long tickNanos) {
    this.nodeOf = spec.placement(cells);
    this.coordinated = spec.sharing() == ClusterSpec.Sharing.COORDINATED;
    this.deltaTick = spec.deltaInterval().toNanos();
    this.nodes = new Node[spec.nodes()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = new Node(i, parameters, cells, tickNanos);
      if (spec.sharing() == ClusterSpec.Sharing.SPLIT) {
        nodes[i].controller().setShare(nodes.length);
      }
    }
    for (int node : nodeOf) {
      nodes[node].figures.cells++;
    }
    this.coordinator = new ClusterCoordinator(STALE_AFTER, settle(nodes.length));
    if (coordinated) {
      // the cluster ran before the outage: every node has coordinated and heard the others' first,
      // quiet, lines
      for (Node n : nodes) {
        coordinate(n, 0);
      }
      for (Delivery d : deliveries) {
        nodes[d.to].heard[(int) d.report.node()] = new Heard(d.report, 0);
      }
      deliveries.clear();
      for (Node n : nodes) {
        coordinate(n, 0);
      }
      deliveries.clear();
    }
  }

  /** Distributed Data's delta slice: how many other nodes one delta tick reaches. */
  static int sliceSize(int nodes) {
    return Math.min(Math.max(nodes / 5 + 1, 2), Math.min(nodes, 10));
  }

  private long settle(int n) {
    int others = n - 1;
    int size = sliceSize(n);
    return others <= 0 ? 0 : (others + size - 1) / size * deltaTick + NOTIFY + ROUND;
  }

  /**
   * The figures of each node.
   *
   * @return one entry per node
   */
  List<NodeFigures> figures() {
    List<NodeFigures> out = new ArrayList<>();
    for (Node n : nodes) {
      out.add(n.figures);
    }
    return out;
  }

  /**
   * The figures of each node, for {@code results.json}.
   *
   * @return one map per node: node, cells, grants, probes, stateChanges
   */
  List<java.util.Map<String, Object>> perNode() {
    List<java.util.Map<String, Object>> out = new ArrayList<>();
    for (Node n : nodes) {
      java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("node", n.id);
      m.put("cells", n.figures.cells);
      m.put("grants", n.figures.grants);
      m.put("probes", n.figures.probes);
      m.put("stateChanges", List.copyOf(n.figures.stateChanges));
      out.add(m);
    }
    return out;
  }

  @Override
  public void failed(int cell, long nowNanos) {
    now = nowNanos;
    Node n = nodes[nodeOf[cell]];
    n.gate.failed(cell, nowNanos);
    n.wakeAt = n.gate.nextWakeNanos();
  }

  @Override
  public boolean offer(int cell, long nowNanos) {
    now = nowNanos;
    Node n = nodes[nodeOf[cell]];
    boolean granted = n.gate.offer(cell, nowNanos);
    if (granted) {
      n.figures.grants++;
    }
    n.wakeAt = n.gate.nextWakeNanos();
    return granted;
  }

  @Override
  public long nextWakeNanos() {
    long wake = Long.MAX_VALUE;
    boolean active = !deliveries.isEmpty();
    for (Node n : nodes) {
      wake = Math.min(wake, n.wakeAt);
      active |= n.wakeAt != Long.MAX_VALUE || !ClusterCoordinator.quiet(n.report());
    }
    if (coordinated && active) {
      long round = Math.max(nextRound, (now / ROUND + 1) * ROUND);
      nextRound = round;
      wake = Math.min(wake, round);
    }
    return wake;
  }

  @Override
  public void wake(long nowNanos, IntConsumer release) {
    now = nowNanos;
    if (coordinated && nowNanos >= nextRound && nowNanos % ROUND == 0) {
      while (!deliveries.isEmpty() && deliveries.peek().atNanos <= nowNanos) {
        Delivery d = deliveries.poll();
        nodes[d.to].heard[(int) d.report.node()] = new Heard(d.report, nowNanos);
      }
      for (Node n : nodes) {
        coordinate(n, nowNanos);
      }
      nextRound = nowNanos + ROUND;
    }
    for (Node n : nodes) {
      if (n.wakeAt <= nowNanos) {
        n.gate.wake(
            nowNanos,
            cell -> {
              n.figures.grants++;
              release.accept(cell);
            });
      }
      n.gate.touch(nowNanos);
      n.wakeAt = n.gate.nextWakeNanos();
    }
  }

  private void coordinate(Node n, long nowNanos) {
    List<Heard> others = new ArrayList<>(nodes.length);
    for (Heard h : n.heard) {
      if (h != null) {
        others.add(h);
      }
    }
    Decision d =
        coordinator.decide(
            n.report(), n.heldAt, nowNanos - n.heldSince, nodes.length, others, nowNanos);
    n.back = Math.max(n.back, d.backEpoch());
    AdaptiveRateController c = n.controller();
    c.coordinate(d.share(), d.probeMembers(), d.prober());
    if (d.resume()) {
      n.resuming = true;
      c.resume(nowNanos);
      n.resuming = false;
    }
    // d.rate() (rebalancing) is not applied, as the cluster module's gate does not apply it: with
    // the waiting counts a round old it ratcheted the rates down (10 nodes: 84 % back after 30 s)
    publish(n, n.report(), nowNanos);
  }

  /**
   * Publishes a node's report as the cluster module does (when it changed, or every second while
   * not quiet) and schedules its arrival at every other node. Distributed Data's replicator sends
   * its deltas every delta interval (400 ms) to a slice of the other nodes, round robin ({@code
   * min(max(n / 5 + 1, 2), min(n, 10))} of them), and the receiver notifies its subscribers every
   * 500 ms; gossip (every 2 s, to one node) is left out, so these delays are upper bounds of what
   * delta propagation alone gives. A report that carries the resource's return (a higher back
   * epoch) is written with {@code WriteAll}: it reaches every node after the latency and the
   * receiver's next notification.
   */
  private void publish(Node n, Report r, long nowNanos) {
    String content = r.state() + " " + r.waiting() + " " + r.rate() + " " + r.backEpoch();
    boolean changed = !content.equals(n.published);
    boolean due =
        n.published == null
            || !ClusterCoordinator.quiet(r) && nowNanos - n.publishedAt >= HEARTBEAT;
    if (!changed && !due) {
      return;
    }
    boolean news = r.backEpoch() > n.publishedBack;
    n.publishedBack = r.backEpoch();
    n.published = content;
    n.publishedAt = nowNanos;
    int others = nodes.length - 1;
    long phase = (n.id * 7919L * 1_000_000L) % deltaTick;
    long t0 = Math.floorDiv(nowNanos - phase, deltaTick) + 1;
    int size = sliceSize(nodes.length);
    int rounds = (others + size - 1) / size + 1;
    for (int k = 0; k < others; k++) {
      long arrive;
      if (news) {
        arrive = nowNanos + LATENCY;
      } else {
        long m = 0;
        while (m < rounds && Math.floorMod(k - (t0 + m) * size, (long) others) >= size) {
          m++;
        }
        arrive = phase + (t0 + m) * deltaTick + LATENCY;
      }
      int to = k >= n.id ? k + 1 : k;
      long notifyPhase = (to * 104729L * 1_000_000L) % NOTIFY;
      long seen = arrive + Math.floorMod(notifyPhase - arrive, NOTIFY);
      deliveries.add(new Delivery(seen, to, r));
    }
  }
}
