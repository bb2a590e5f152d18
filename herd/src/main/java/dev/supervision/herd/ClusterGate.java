package dev.supervision.herd;

import dev.supervision.backoff.cluster.LeaseLearner;
import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Reason;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntConsumer;

/**
 * The exact model of an adaptive budget on a cluster of nodes.
 *
 * <ul>
 *   <li>{@link ClusterSpec.Sharing#COORDINATED}: one production {@link LeaseLearner} on the
 *       learner's node (node 0), and on every node the production {@link
 *       dev.supervision.backoff.rate.LeaseHolder} driven as the library's gate drives it ({@link
 *       LeaseGate}). The learner runs a round every slice (100 ms, at multiples of it): its leases
 *       reach their nodes {@link ClusterSpec#learnerDelay()} later (at once on the learner's own
 *       node); a node answers each lease at once with its report, which reaches the learner after
 *       the same delay; a node without a valid lease reports every round (it registers, or looks for
 *       a learner). A message due at the time of a round arrives before the round. The cluster ran
 *       before the outage: at 0 every node has reported and holds the learner's steady lease, and
 *       the outage strikes right after that round.
 *   <li>{@link ClusterSpec.Sharing#SPLIT}: every node's holder on its {@code 1/N} fallback for
 *       ever.
 *   <li>{@link ClusterSpec.Sharing#LOCAL}: every node its own full controller ({@link
 *       AdaptiveGate}).
 * </ul>
 *
 * <p>Membership changes: a node may leave or join ({@link ClusterSpec#leaveAt()}, {@link
 * ClusterSpec#joinAt()}), and the learner's node may crash ({@link ClusterSpec#learnerLostAt()}):
 * from the crash no lease is sent and its cells call nothing (a cell whose delay passes waits for
 * the handover); after {@link ClusterSpec#handover()} it is removed, its cells that are not back
 * move to the other nodes round robin (those waiting, or whose delay passed during the handover,
 * ask their new node at once; the others when their delay passes), and a new learner starts, cold,
 * on the lowest surviving node. Its cells that were back stay back: their restart elsewhere when
 * they are next messaged is not modelled. A removed node is removed from the learner ({@link
 * LeaseLearner#remove}) and every holder's membership follows the members ({@link
 * dev.supervision.backoff.rate.LeaseHolder#setMembers}).
 */
final class ClusterGate implements HerdStrategy.ExactGate {

  private static final long MS = 1_000_000L;

  /** What the run records per node. */
  static final class NodeFigures {
    int cells;
    int probes;
    int grants;
    int movedIn;
    int movedOut;
    final List<String> stateChanges = new ArrayList<>();
    final List<Map<String, Object>> losses = new ArrayList<>();
  }

  /** Records state changes, cuts and probes. */
  private static final class Recorder implements AdaptiveRateController.Listener {
    final NodeFigures figures = new NodeFigures();

    @Override
    public void stateChanged(State from, State to, Reason reason, long nowNanos) {
      figures.stateChanges.add(nowNanos / MS + " ms " + from + " -> " + to + " " + reason);
    }

    @Override
    public void rateChanged(double from, double to, double goodput, Reason reason, long nowNanos) {
      if (reason == Reason.LOSS) {
        Map<String, Object> loss = new LinkedHashMap<>();
        loss.put("atMs", nowNanos / MS);
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
  }

  /** One node: its gate (a lease holder's, or a local controller's) and its figures. */
  private final class Node {
    final int id;
    final Recorder recorder = new Recorder();
    final LeaseGate leased;
    final AdaptiveGate local;
    long wakeAt = Long.MAX_VALUE;
    long reportedRound = Long.MIN_VALUE;

    Node(int id, AdaptiveRateController.Parameters p, int members, int cells, long tick) {
      this.id = id;
      if (sharing == ClusterSpec.Sharing.LOCAL) {
        this.local = new AdaptiveGate(new AdaptiveRateController(p, recorder), cells, tick);
        this.leased = null;
      } else {
        this.leased = new LeaseGate(p, members, cells, tick, recorder);
        this.local = null;
      }
    }

    NodeFigures figures() {
      return recorder.figures;
    }

    boolean offer(int cell, long t) {
      boolean granted = local != null ? local.offer(cell, t) : leased.offer(cell, t);
      if (granted) {
        figures().grants++;
      }
      return granted;
    }

    void failed(int cell, long t) {
      if (local != null) {
        local.failed(cell, t);
      } else {
        leased.failed(cell, t);
      }
    }

    void wake(long t, IntConsumer release) {
      IntConsumer counted =
          cell -> {
            figures().grants++;
            release.accept(cell);
          };
      if (local != null) {
        local.wake(t, counted);
      } else {
        leased.wake(t, counted);
        if (coordinated && !leased.leased()) {
          long r = Math.floorDiv(t, round);
          if (r != reportedRound) {
            reportedRound = r;
            sendReport(this, leased.report(t), t);
          }
        }
      }
    }

    void touch(long t) {
      if (local != null) {
        local.touch(t);
      } else {
        leased.touch(t);
      }
    }

    long nextWake() {
      if (local != null) {
        return local.nextWakeNanos();
      }
      // on the fallback, a coordinated node ticks at the first tick of every round, and reports
      return leased.nextWakeNanos(coordinated);
    }

    List<Integer> evict(java.util.function.IntPredicate moved) {
      return local != null ? local.evict(moved) : leased.evict(moved);
    }

    int waitingCount() {
      return local != null ? local.waitingCount() : leased.waitingCount();
    }

    State state() {
      return local != null ? local.controller().state() : leased.state();
    }

    double rate() {
      return local != null ? local.controller().rate() : leased.rate();
    }
  }

  /** A message on its way: a lease to a node, or a report to the learner. */
  private record Message(
      long atNanos, long seq, int node, Lease lease, NodeReport report, int epoch)
      implements Comparable<Message> {
    @Override
    public int compareTo(Message o) {
      int t = Long.compare(atNanos, o.atNanos);
      return t != 0 ? t : Long.compare(seq, o.seq);
    }
  }

  /** One round of the learner, for tests: its state and rate, and the permits it leased. */
  record Round(long atNanos, State state, double rate, long permits, int probes, int nodes) {}

  private final AdaptiveRateController.Parameters parameters;
  private final ClusterSpec.Sharing sharing;
  private final boolean coordinated;
  private final Node[] nodes;
  private final boolean[] member;
  private final boolean[] pending;
  private int unresolved;
  private long lastGrantAt;
  private final int[] nodeOf;
  private final long round;
  private final long delay;
  private final long leaveAt;
  private final long joinAt;
  private final long lostAt;
  private final long handover;
  private final int leaving;
  private final int joiner;
  private boolean left;
  private boolean removed;
  private boolean joined;
  private boolean moved;
  private boolean crashed;
  private boolean handedOver;
  private final List<Integer> limbo = new ArrayList<>();
  private final PriorityQueue<Message> messages = new PriorityQueue<>();
  private long seq;
  private long now;

  private LeaseLearner learner;
  private int learnerNode;
  private int epoch;
  private long nextRound;
  private final List<Recorder> learners = new ArrayList<>();
  private final List<Integer> learnerNodes = new ArrayList<>();
  private final List<Round> rounds = new ArrayList<>();

  /**
   * A cluster gate.
   *
   * @param parameters the budget's controller parameters
   * @param spec the cluster
   * @param cells the number of cells
   * @param tickNanos the gate's tick
   */
  ClusterGate(
      AdaptiveRateController.Parameters parameters, ClusterSpec spec, int cells, long tickNanos) {
    this.parameters = parameters;
    this.nodeOf = spec.placement(cells);
    this.sharing = spec.sharing();
    this.coordinated = sharing == ClusterSpec.Sharing.COORDINATED;
    this.round = AdaptiveRateController.SLICE.toNanos();
    this.delay = spec.learnerDelay().toNanos();
    this.leaveAt = spec.leaveAt() == null ? Long.MAX_VALUE : spec.leaveAt().toNanos();
    this.joinAt = spec.joinAt() == null ? Long.MAX_VALUE : spec.joinAt().toNanos();
    this.lostAt = spec.learnerLostAt() == null ? Long.MAX_VALUE : spec.learnerLostAt().toNanos();
    this.handover = spec.handover().toNanos();
    this.leaving = spec.leaveAt() == null ? -1 : spec.nodes() - 1;
    this.joiner = spec.joinAt() == null ? -1 : spec.nodes();
    this.pending = new boolean[cells];
    int total = spec.nodes() + (spec.joinAt() == null ? 0 : 1);
    this.nodes = new Node[total];
    this.member = new boolean[total];
    for (int i = 0; i < total; i++) {
      member[i] = i < spec.nodes();
      nodes[i] = new Node(i, parameters, spec.nodes(), cells, tickNanos);
    }
    for (int node : nodeOf) {
      nodes[node].figures().cells++;
    }
    if (coordinated) {
      startLearner(0);
      // the cluster ran before the outage: every node has reported, and holds the steady lease of
      // the round at 0
      for (Node n : nodes) {
        if (member[n.id]) {
          learner.onReport(n.id, n.leased.report(0), 0);
        }
      }
      Map<Long, Lease> leases = learner.round(0);
      for (Map.Entry<Long, Lease> e : leases.entrySet()) {
        nodes[(int) (long) e.getKey()].leased.onLease(e.getValue(), 0, cell -> {});
      }
      nextRound = round;
    }
  }

  private void startLearner(int node) {
    Recorder r = new Recorder();
    learner = new LeaseLearner(parameters, r);
    learners.add(r);
    learnerNodes.add(node);
    learnerNode = node;
    epoch++;
  }

  private int members() {
    int m = 0;
    for (boolean b : member) {
      m += b ? 1 : 0;
    }
    return m;
  }

  /**
   * The figures of each node, for {@code results.json}.
   *
   * @return one map per node: node, cells, grants, probes, movedIn, movedOut, fallbackMs (model
   *     time on its own fallback: no valid lease), stateChanges, losses (each cut of its rate:
   *     atMs, rateBefore, rate, and the goodput its controller measured, successes per second); and
   *     on a node that ran the learner, {@code learner}: its stateChanges, losses and probes
   */
  List<Map<String, Object>> perNode() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Node n : nodes) {
      NodeFigures f = n.figures();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("node", n.id);
      m.put("cells", f.cells);
      m.put("grants", n.leased == null ? f.grants : n.leased.grants);
      m.put("probes", f.probes + (n.leased == null ? 0 : n.leased.probes));
      m.put("movedIn", f.movedIn);
      m.put("movedOut", f.movedOut);
      m.put("fallbackMs", n.leased == null ? 0 : n.leased.fallbackNanos(now) / MS);
      m.put("stateChanges", List.copyOf(f.stateChanges));
      m.put("losses", List.copyOf(f.losses));
      for (int i = 0; i < learners.size(); i++) {
        if (learnerNodes.get(i) == n.id) {
          NodeFigures l = learners.get(i).figures;
          Map<String, Object> lm = new LinkedHashMap<>();
          lm.put("stateChanges", List.copyOf(l.stateChanges));
          lm.put("losses", List.copyOf(l.losses));
          lm.put("probes", l.probes);
          m.put("learner", lm);
        }
      }
      out.add(m);
    }
    return out;
  }

  /** The learners' rounds, in order (for tests). */
  List<Round> rounds() {
    return rounds;
  }

  @Override
  public void failed(int cell, long nowNanos) {
    now = Math.max(now, nowNanos);
    if (!pending[cell]) {
      pending[cell] = true;
      unresolved++;
    }
    Node n = nodes[nodeOf[cell]];
    n.failed(cell, nowNanos);
    n.wakeAt = n.nextWake();
  }

  @Override
  public boolean offer(int cell, long nowNanos) {
    now = Math.max(now, nowNanos);
    if (crashed && !handedOver && nodeOf[cell] == 0) {
      limbo.add(cell); // its node is down: it waits for sharding to start it elsewhere
      return false;
    }
    Node n = nodes[nodeOf[cell]];
    boolean granted = n.offer(cell, nowNanos);
    if (granted) {
      resolved(cell);
    }
    n.wakeAt = n.nextWake();
    return granted;
  }

  private void resolved(int cell) {
    lastGrantAt = now;
    if (pending[cell]) {
      pending[cell] = false;
      unresolved--;
    }
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
    if (!crashed) {
      e = Math.min(e, lostAt);
    } else if (!handedOver) {
      e = Math.min(e, lostAt + handover);
    }
    return e;
  }

  @Override
  public long nextWakeNanos() {
    if (unresolved == 0 && now > lastGrantAt) {
      return Long.MAX_VALUE; // every cell is back: nothing the gate does matters any more
    }
    long wake = nextEvent();
    if (!messages.isEmpty()) {
      wake = Math.min(wake, messages.peek().atNanos);
    }
    if (learner != null) {
      wake = Math.min(wake, nextRound);
    }
    for (Node n : nodes) {
      if (live(n.id)) {
        wake = Math.min(wake, n.wakeAt);
      }
    }
    return wake == Long.MAX_VALUE ? wake : Math.max(wake, now);
  }

  /** Whether a node runs: a member (or one that has left but not yet gone), not crashed. */
  private boolean live(int id) {
    return (member[id] || id == leaving && !removed) && !(crashed && id == 0);
  }

  @Override
  public void wake(long nowNanos, IntConsumer release) {
    now = Math.max(now, nowNanos);
    IntConsumer released =
        cell -> {
          resolved(cell);
          release.accept(cell);
        };
    membershipChanges(nowNanos, released);
    boolean rounded = false;
    boolean again = true;
    while (again) {
      deliver(nowNanos, released);
      if (!rounded && learner != null && nowNanos >= nextRound) {
        rounded = true;
        learnerRound(nowNanos);
        deliver(nowNanos, released);
      }
      for (Node n : nodes) {
        if (live(n.id) && n.wakeAt <= nowNanos) {
          n.wake(nowNanos, released);
        }
        n.touch(nowNanos);
        n.wakeAt = n.nextWake();
      }
      again = !messages.isEmpty() && messages.peek().atNanos <= nowNanos;
    }
  }

  private void deliver(long nowNanos, IntConsumer release) {
    while (!messages.isEmpty() && messages.peek().atNanos <= nowNanos) {
      Message m = messages.poll();
      if (m.lease != null) {
        Node n = nodes[m.node];
        if (live(m.node)) {
          NodeReport answer = n.leased.onLease(m.lease, nowNanos, release);
          n.wakeAt = n.nextWake();
          sendReport(n, answer, nowNanos);
        }
      } else if (learner != null && m.epoch == epoch) {
        learner.onReport(m.node, m.report, nowNanos);
      }
    }
  }

  private void sendReport(Node from, NodeReport report, long nowNanos) {
    if (learner == null) {
      return; // nobody listens: the learner's node is down
    }
    long d = from.id == learnerNode ? 0 : delay;
    messages.add(new Message(nowNanos + d, seq++, from.id, null, report, epoch));
  }

  private void learnerRound(long nowNanos) {
    Map<Long, Lease> leases = learner.round(nowNanos);
    long permits = 0;
    int probes = 0;
    for (Map.Entry<Long, Lease> e : leases.entrySet()) {
      Lease l = e.getValue();
      if (!l.unlimited()) {
        permits += l.permits();
      }
      probes += l.probe() ? 1 : 0;
      int to = (int) (long) e.getKey();
      long d = to == learnerNode ? 0 : delay;
      messages.add(new Message(nowNanos + d, seq++, to, l, null, epoch));
    }
    rounds.add(
        new Round(nowNanos, learner.state(), learner.rate(), permits, probes, leases.size()));
    nextRound = (Math.floorDiv(nowNanos, round) + 1) * round;
  }

  /**
   * A node leaving (its cells that are not back handed off to the others at once, its membership
   * ended {@link ClusterSpec#REMOVAL} later), joining (counted at once, given its cells {@link
   * ClusterSpec#HANDOFF} later), or the learner's node crashing (its cells handed over, and a new
   * learner started, {@link ClusterSpec#handover()} later). A moved cell that was waiting for a
   * permit asks its new node's gate at once (sharding starts the entity there when it is next
   * messaged); the others ask there when their delay has passed.
   */
  private void membershipChanges(long nowNanos, IntConsumer release) {
    if (!left && nowNanos >= leaveAt) {
      left = true;
      List<Integer> others = others(leaving);
      int k = 0;
      List<Integer> movedCells = new ArrayList<>();
      for (int cell = 0; cell < nodeOf.length; cell++) {
        if (nodeOf[cell] == leaving && pending[cell]) {
          nodeOf[cell] = others.get(k++ % others.size());
          movedCells.add(cell);
        }
      }
      nodes[leaving].figures().movedOut += movedCells.size();
      move(nodes[leaving].evict(c -> nodeOf[c] != leaving), nowNanos, release);
      for (int cell : movedCells) {
        nodes[nodeOf[cell]].figures().movedIn++;
      }
    }
    if (left && !removed && nowNanos >= leaveAt + ClusterSpec.REMOVAL.toNanos()) {
      removed = true;
      member[leaving] = false;
      gone(leaving, nowNanos);
    }
    if (!joined && nowNanos >= joinAt) {
      joined = true;
      member[joiner] = true;
      membersChanged(nowNanos);
      Node j = nodes[joiner];
      if (j.leased != null) {
        j.leased.startAt(nowNanos);
      }
      j.touch(nowNanos);
      j.wakeAt = j.nextWake();
    }
    if (joined && !moved && nowNanos >= joinAt + ClusterSpec.HANDOFF.toNanos()) {
      moved = true;
      int n = nodes.length;
      for (Node from : nodes) {
        if (from.id == joiner || !live(from.id)) {
          continue;
        }
        List<Integer> waiting = from.evict(c -> c % n == joiner);
        for (int cell = 0; cell < nodeOf.length; cell++) {
          if (cell % n == joiner && nodeOf[cell] == from.id && pending[cell]) {
            nodeOf[cell] = joiner;
            from.figures().movedOut++;
            nodes[joiner].figures().movedIn++;
          }
        }
        move(waiting, nowNanos, release);
      }
    }
    if (!crashed && nowNanos >= lostAt) {
      crashed = true;
      learner = null; // no lease from now on; reports to it are lost
      limbo.addAll(nodes[0].evict(c -> true));
    }
    if (crashed && !handedOver && nowNanos >= lostAt + handover) {
      handedOver = true;
      member[0] = false;
      List<Integer> others = others(0);
      int k = 0;
      for (int cell = 0; cell < nodeOf.length; cell++) {
        if (nodeOf[cell] == 0 && pending[cell]) {
          nodeOf[cell] = others.get(k++ % others.size());
          nodes[0].figures().movedOut++;
          nodes[nodeOf[cell]].figures().movedIn++;
        }
      }
      gone(0, nowNanos);
      if (coordinated) {
        startLearner(others.get(0)); // the singleton starts on another node, cold
        nextRound = Math.max(nowNanos, (Math.floorDiv(nowNanos - 1, round) + 1) * round);
      }
      List<Integer> asking = new ArrayList<>(limbo);
      limbo.clear();
      move(asking, nowNanos, release);
    }
  }

  private List<Integer> others(int node) {
    List<Integer> others = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      if (member[i] && i != node && !(crashed && i == 0)) {
        others.add(i);
      }
    }
    return others;
  }

  /** A node is removed from the membership: the learner forgets it, the others count one less. */
  private void gone(int node, long nowNanos) {
    if (learner != null) {
      learner.remove(node);
    }
    membersChanged(nowNanos);
  }

  private void membersChanged(long nowNanos) {
    int m = members();
    for (Node n : nodes) {
      if (n.leased != null && live(n.id)) {
        n.leased.setMembers(m, nowNanos);
      }
    }
  }

  private void move(List<Integer> cells, long nowNanos, IntConsumer release) {
    for (int cell : cells) {
      Node to = nodes[nodeOf[cell]];
      if (to.offer(cell, nowNanos)) {
        release.accept(cell);
      }
      to.wakeAt = to.nextWake();
    }
  }

  /** What {@link RampTrace} shows of a node. */
  record View(State state, double rate, int waiting) {}

  /** Every node's view, members or not, in node order (for {@link RampTrace}). */
  List<View> views() {
    List<View> out = new ArrayList<>(nodes.length);
    for (Node n : nodes) {
      out.add(new View(n.state(), n.rate(), n.waitingCount()));
    }
    return out;
  }

  /** The learner's round. */
  long round() {
    return round;
  }
}
