package dev.supervision.herd;

import dev.supervision.backoff.spi.AdaptiveRateController;
import dev.supervision.backoff.spi.AdaptiveRateController.Reason;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntConsumer;

/**
 * The exact model of an adaptive budget on a cluster of nodes. Every node runs what the one-node
 * exact mode runs (its own {@link AdaptiveGate}: the production controller and pacer,
 * driven as the gate drives them), on the cells placed on it. With {@link
 * ClusterSpec.Sharing#COORDINATED} the nodes coordinate through the production {@link
 * ClusterCoordinator} and its {@link ClusterCoordinator.Local} state, as the cluster module's
 * coordination does, with the same {@link ClusterCoordinator.Timing} derived from Distributed
 * Data's settings: every round each node decides from the reports it has received and publishes its
 * own, and a report reaches another node after the delay Pekko Distributed Data takes with its
 * defaults (see {@link #publish}). A node may leave or join during the run ({@link
 * ClusterSpec#leaveAt()}, {@link ClusterSpec#joinAt()}).
 */
final class ClusterGate implements HerdStrategy.ExactGate {

  private static final long LATENCY = 1_000_000L; // one way, on a LAN

  /** What the run records per node. */
  static final class NodeFigures {
    int cells;
    int grants;
    int probes;
    int movedIn;
    int movedOut;
    int aloneRounds;
    final List<String> stateChanges = new ArrayList<>();
    final List<Map<String, Object>> losses = new ArrayList<>();
  }

  /**
   * A report on its way: it arrives at {@code to} at {@code atNanos}; {@code sentAtNanos} orders the
   * reports of one sender, as the replicated map's last-writer-wins clock does (a delta tick may
   * bring a newer line before an older one, which must not overwrite it).
   */
  private record Delivery(long atNanos, int to, Report report, long sentAtNanos)
      implements Comparable<Delivery> {
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
    final long[] heardSent;
    final ClusterCoordinator.Local local;
    final NodeFigures figures = new NodeFigures();
    long wakeAt = Long.MAX_VALUE;
    String published;
    long publishedAt = Long.MIN_VALUE;
    long publishedBack;
    long memberSince;

    Node(int id, AdaptiveRateController.Parameters p, int cells, long tick) {
      this.id = id;
      this.gate = new AdaptiveGate(new AdaptiveRateController(p, this), cells, tick);
      this.heard = new Heard[nodes.length];
      this.heardSent = new long[nodes.length];
      java.util.Arrays.fill(heardSent, Long.MIN_VALUE);
      this.local = new ClusterCoordinator.Local(id);
    }

    AdaptiveRateController controller() {
      return gate.controller();
    }

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      figures.stateChanges.add(nowNanos / 1_000_000 + " ms " + from + " -> " + to + " " + reason);
    }

    @Override
    public void rateChanged(double from, double to, double goodput, Reason reason, long nowNanos) {
      if (reason == Reason.LOSS) {
        Map<String, Object> loss = new LinkedHashMap<>();
        loss.put("atMs", nowNanos / 1_000_000);
        loss.put("rateBefore", from);
        loss.put("rate", to);
        loss.put("goodput", goodput);
        figures.losses.add(loss);
      }
    }

    @Override
    public void probe(int probes, long nowNanos) {
      figures.probes++;
    }

    Report observe(long nowNanos) {
      AdaptiveRateController c = controller();
      return local.observe(c.state(), gate.waitingCount(), c.rate(), c.goodput(), nowNanos);
    }

    Report report() {
      AdaptiveRateController c = controller();
      return local.report(c.state(), gate.waitingCount(), c.rate(), c.goodput());
    }
  }

  private final Node[] nodes;
  private final boolean[] member;
  private final int[] nodeOf;
  private final boolean coordinated;
  private final ClusterSpec spec;
  private final long deltaTick;
  private final ClusterCoordinator.Timing timing;
  private final long round;
  private final long heartbeat;
  private final long notify;
  private final long leaveAt;
  private final long joinAt;
  private final int leaving;
  private final int joiner;
  private boolean left;
  private boolean removed;
  private boolean joined;
  private boolean moved;
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
    this.spec = spec;
    this.timing =
        ClusterCoordinator.Timing.of(
            parameters.slice(), spec.deltaInterval(), spec.notifyInterval());
    this.round = timing.round().toNanos();
    this.heartbeat = timing.heartbeat().toNanos();
    this.notify = timing.notifyInterval().toNanos();
    this.leaveAt = spec.leaveAt() == null ? Long.MAX_VALUE : spec.leaveAt().toNanos();
    this.joinAt = spec.joinAt() == null ? Long.MAX_VALUE : spec.joinAt().toNanos();
    this.leaving = spec.leaveAt() == null ? -1 : spec.nodes() - 1;
    this.joiner = spec.joinAt() == null ? -1 : spec.nodes();
    int total = spec.nodes() + (spec.joinAt() == null ? 0 : 1);
    this.nodes = new Node[total];
    this.member = new boolean[total];
    for (int i = 0; i < total; i++) {
      nodes[i] = new Node(i, parameters, cells, tickNanos);
      member[i] = i < spec.nodes();
      if (spec.sharing() == ClusterSpec.Sharing.SPLIT) {
        nodes[i].controller().setShare(spec.nodes());
      }
    }
    for (int node : nodeOf) {
      nodes[node].figures.cells++;
    }
    if (coordinated) {
      // the cluster ran before the outage: every node has coordinated and heard the others' first,
      // quiet, lines
      for (Node n : members()) {
        coordinate(n, 0);
      }
      for (Delivery d : deliveries) {
        nodes[d.to].heard[(int) d.report.node()] = new Heard(d.report, 0);
      }
      deliveries.clear();
      for (Node n : members()) {
        coordinate(n, 0);
      }
      deliveries.clear();
    }
  }

  private List<Node> members() {
    List<Node> out = new ArrayList<>(nodes.length);
    for (int i = 0; i < nodes.length; i++) {
      if (member[i]) {
        out.add(nodes[i]);
      }
    }
    return out;
  }

  /**
   * The figures of each node, for {@code results.json}.
   *
   * @return one map per node: node, cells, grants, probes, movedIn, movedOut, aloneRounds (rounds
   *     in which it decided alone: its view lacked a member's line, or had a stale one),
   *     stateChanges, losses (each cut of its rate: atMs, rateBefore, rate, and the goodput its
   *     controller measured, successes per second)
   */
  List<Map<String, Object>> perNode() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Node n : nodes) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("node", n.id);
      m.put("cells", n.figures.cells);
      m.put("grants", n.figures.grants);
      m.put("probes", n.figures.probes);
      m.put("movedIn", n.figures.movedIn);
      m.put("movedOut", n.figures.movedOut);
      m.put("aloneRounds", n.figures.aloneRounds);
      m.put("stateChanges", List.copyOf(n.figures.stateChanges));
      m.put("losses", List.copyOf(n.figures.losses));
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

  private long nextEvent() {
    long e = Long.MAX_VALUE;
    if (!left) {
      e = Math.min(e, leaveAt);
    } else if (!removed) {
      e = Math.min(e, leaveAt + ClusterSpec.REMOVAL.toNanos());
    }
    if (!joined) {
      e = Math.min(e, joinAt);
    } else if (!moved) {
      e = Math.min(e, joinAt + ClusterSpec.HANDOFF.toNanos());
    }
    return e;
  }

  @Override
  public long nextWakeNanos() {
    long wake = nextEvent();
    boolean active = !deliveries.isEmpty();
    for (Node n : nodes) {
      wake = Math.min(wake, n.wakeAt);
      active |= n.wakeAt != Long.MAX_VALUE || !ClusterCoordinator.quiet(n.report());
    }
    if (coordinated && active) {
      long r = Math.max(nextRound, (now / round + 1) * round);
      nextRound = r;
      wake = Math.min(wake, r);
    }
    return Math.max(wake, now);
  }

  @Override
  public void wake(long nowNanos, IntConsumer release) {
    now = nowNanos;
    membershipChanges(nowNanos, release);
    if (coordinated && nowNanos >= nextRound && nowNanos % round == 0) {
      while (!deliveries.isEmpty() && deliveries.peek().atNanos <= nowNanos) {
        Delivery d = deliveries.poll();
        Node to = nodes[d.to];
        int from = (int) d.report.node();
        if (member[d.to] && d.sentAtNanos >= to.heardSent[from]) {
          to.heard[from] = new Heard(d.report, nowNanos);
          to.heardSent[from] = d.sentAtNanos;
        }
      }
      for (Node n : members()) {
        coordinate(n, nowNanos);
      }
      nextRound = nowNanos + round;
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

  /**
   * A node leaving (its shards handed off to the others at once, its membership ended {@link
   * ClusterSpec#REMOVAL} later) or joining (counted at once, given its shards {@link
   * ClusterSpec#HANDOFF} later). A moved cell that was waiting for a permit asks its new node's gate
   * at once (sharding starts the entity there when it is next messaged); the others wait there when
   * their delay has passed.
   */
  private void membershipChanges(long nowNanos, IntConsumer release) {
    if (!left && nowNanos >= leaveAt) {
      left = true;
      List<Integer> others = new ArrayList<>();
      for (int i = 0; i < nodes.length; i++) {
        if (member[i] && i != leaving) {
          others.add(i);
        }
      }
      int k = 0;
      List<Integer> movedCells = new ArrayList<>();
      for (int cell = 0; cell < nodeOf.length; cell++) {
        if (nodeOf[cell] == leaving) {
          nodeOf[cell] = others.get(k++ % others.size());
          movedCells.add(cell);
        }
      }
      nodes[leaving].figures.movedOut += movedCells.size();
      move(nodes[leaving].gate.evict(c -> nodeOf[c] != leaving), nowNanos, release);
      for (int cell : movedCells) {
        nodes[nodeOf[cell]].figures.movedIn++;
      }
    }
    if (left && !removed && nowNanos >= leaveAt + ClusterSpec.REMOVAL.toNanos()) {
      removed = true;
      member[leaving] = false;
      for (Node n : nodes) {
        n.heard[leaving] = null;
      }
    }
    if (!joined && nowNanos >= joinAt) {
      joined = true;
      member[joiner] = true;
      nodes[joiner].memberSince = nowNanos;
      if (coordinated) {
        coordinate(nodes[joiner], nowNanos); // its first, quiet, line
      }
    }
    if (joined && !moved && nowNanos >= joinAt + ClusterSpec.HANDOFF.toNanos()) {
      moved = true;
      int n = nodes.length;
      for (Node from : nodes) {
        if (from.id == joiner) {
          continue;
        }
        List<Integer> waiting = from.gate.evict(c -> c % n == joiner);
        for (int cell = 0; cell < nodeOf.length; cell++) {
          if (cell % n == joiner && nodeOf[cell] == from.id) {
            nodeOf[cell] = joiner;
            from.figures.movedOut++;
            nodes[joiner].figures.movedIn++;
          }
        }
        move(waiting, nowNanos, release);
      }
    }
  }

  private void move(List<Integer> cells, long nowNanos, IntConsumer release) {
    for (int cell : cells) {
      Node to = nodes[nodeOf[cell]];
      if (to.gate.offer(cell, nowNanos)) {
        to.figures.grants++;
        release.accept(cell);
      }
      to.wakeAt = to.gate.nextWakeNanos();
    }
  }

  private void coordinate(Node n, long nowNanos) {
    List<Heard> others = new ArrayList<>(nodes.length);
    int members = 0;
    for (boolean m : member) {
      members += m ? 1 : 0;
    }
    long grace = timing.staleAfterNanos(members);
    int joining = 0;
    for (int i = 0; i < nodes.length; i++) {
      if (!member[i]) {
        continue;
      }
      Heard h = n.heard[i];
      if (h != null) {
        others.add(h);
      } else if (i != n.id
          && nodes[i].memberSince > n.memberSince
          && nowNanos - nodes[i].memberSince < grace) {
        // joined after this node: it has no line yet because it is new, not because it is cut off
        joining++;
      }
    }
    Report self = n.observe(nowNanos);
    Decision d =
        n.local.decide(timing.coordinator(members), self, members, joining, others, nowNanos);
    AdaptiveRateController c = n.controller();
    if (!d.coordinated() && nowNanos > 0) {
      n.figures.aloneRounds++;
    }
    c.coordinate(d.share(), d.probeMembers(), d.prober(), d.stayRamping());
    if (d.resume()) {
      c.resume(nowNanos);
    }
    if (!Double.isNaN(d.rate())) {
      c.rebalance(d.rate(), nowNanos);
    }
    publish(n, n.report(), nowNanos);
  }

  /**
   * Publishes a node's report as the cluster module does (when it changed, or every heartbeat while
   * not quiet) and schedules its arrival at every other member. Distributed Data's replicator sends
   * its deltas every delta interval (400 ms) to a slice of the other nodes, round robin ({@link
   * ClusterCoordinator.Timing#sliceSize}), and the receiver notifies its subscribers every 500 ms;
   * gossip (every 2 s, to one node) is left out, so these delays are upper bounds of what delta
   * propagation alone gives. A report that carries the resource's return (a higher back epoch) is
   * written with {@code WriteAll}: it reaches every node after the latency and the receiver's next
   * notification.
   */
  private void publish(Node n, Report r, long nowNanos) {
    String content =
        r.state() + " " + r.waiting() + " " + r.rate() + " " + r.backEpoch() + " " + r.goodput();
    boolean changed = !content.equals(n.published);
    boolean due =
        n.published == null
            || !ClusterCoordinator.quiet(r) && nowNanos - n.publishedAt >= heartbeat;
    if (!changed && !due) {
      return;
    }
    boolean news = r.backEpoch() > n.publishedBack;
    n.publishedBack = r.backEpoch();
    n.published = content;
    n.publishedAt = nowNanos;
    List<Integer> to = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      if (member[i] && i != n.id) {
        to.add(i);
      }
    }
    int others = to.size();
    for (int k = 0; k < others; k++) {
      long arrive =
          news
              ? nowNanos + LATENCY
              : deltaTickNanos(n.id, spec.startTicks(n.id), k, others, deltaTick, nowNanos)
                  + LATENCY;
      int dest = to.get(k);
      long notifyPhase = (dest * 104729L * 1_000_000L) % notify;
      long seen = arrive + Math.floorMod(notifyPhase - arrive, notify);
      deliveries.add(new Delivery(seen, dest, r, nowNanos));
    }
  }

  /**
   * The delta tick at which a line written now leaves its sender for one of the other nodes, as
   * Pekko's replicator picks them: every delta tick (at the sender's own phase) it sends to the next
   * slice of {@link ClusterCoordinator.Timing#sliceSize} nodes of its sorted list of the others,
   * from a counter that grew by the slice size on every tick since the replicator started.
   *
   * @param sender the sender's index (its tick phase is derived from it)
   * @param startTicks how many ticks after node 0's the sender's replicator started
   * @param k the receiver's place in the sender's list of the other members
   * @param others how many other members the sender has
   * @param deltaTick the delta interval, nanoseconds
   * @param nowNanos when the line is written
   * @return when the delta carrying it leaves the sender
   */
  static long deltaTickNanos(
      int sender, long startTicks, int k, int others, long deltaTick, long nowNanos) {
    long phase = (sender * 7919L * 1_000_000L) % deltaTick;
    long t0 = Math.floorDiv(nowNanos - phase, deltaTick) + 1;
    int size = ClusterCoordinator.Timing.sliceSize(others + 1);
    int rounds = (others + size - 1) / size + 1;
    long m = 0;
    long counter = (t0 - startTicks) * size;
    while (m < rounds && Math.floorMod(k - counter, (long) others) >= size) {
      m++;
      counter += size;
    }
    return phase + (t0 + m) * deltaTick;
  }

  /** Every node's gate, members or not, in node order (for {@link RampTrace}). */
  List<AdaptiveGate> gates() {
    List<AdaptiveGate> out = new ArrayList<>(nodes.length);
    for (Node n : nodes) {
      out.add(n.gate);
    }
    return out;
  }

  /** The timing this model runs with, for tests. */
  Duration round() {
    return timing.round();
  }
}
