package dev.supervision.backoff.cluster;

import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.spi.AdaptiveRateController;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.ClusterCoordinator.Decision;
import dev.supervision.backoff.spi.ClusterCoordinator.Heard;
import dev.supervision.backoff.spi.ClusterCoordinator.Report;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.LWWMap;
import org.apache.pekko.cluster.ddata.LWWMapKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.apache.pekko.cluster.ddata.typed.javadsl.DistributedData;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.apache.pekko.cluster.ddata.typed.javadsl.ReplicatorMessageAdapter;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * INTERNAL API: the coordination of one cluster-wide adaptive budget on one node, over Pekko
 * Distributed Data. A child of the budget's gate. Every round (see {@link #timing}) it asks the gate for
 * its status, decides on it, sends the gate the decision, asks again, turns the answer (the state
 * the decision left the gate in) into a {@link Report} and, when the report changed (or, while it is not
 * {@link ClusterCoordinator#quiet quiet}, every heartbeat), writes it into this node's own
 * entry of one replicated {@code LWWMap} per budget with {@code WriteLocal}: the write never waits
 * for the network; delta propagation and gossip spread it. The one write that must be fast, the
 * resource's return found by this node's probe (a higher back epoch), is written with {@code
 * WriteAll}, which sends it to every replica at once (the gate does not wait for it either). It subscribes to the map, stamps each
 * entry with the round it first saw that entry's content, and sends the gate the {@link
 * ClusterCoordinator}'s {@link Decision} as a {@link GateProtocol.Coordinate}.
 *
 * <p>The entries are strings (one line per node, {@code state waiting rate back seq goodput}), so Pekko's
 * built-in serializers carry them and the library needs no serializer of its own. Only this node
 * writes its entry, so the last-writer-wins clock never has to break a tie between writers.
 *
 * <p>Time is the count of its own rounds on a Pekko timer, so {@code ManualTime} drives it.
 */
final class ReplicatedCoordination {

  /**
   * The coordination's timing on this actor system: derived ({@link ClusterCoordinator.Timing#of})
   * from the controller's slice and Distributed Data's settings, {@code
   * pekko.cluster.distributed-data.gossip-interval} (the replicator sends its deltas every fifth of
   * it, at least every 200 ms) and {@code notify-subscribers-interval}. With Pekko's defaults: a
   * round of 200 ms, a heartbeat of 1 s, a stale window of 4.9 s at 10 nodes and 7.7 s at 100.
   */
  static ClusterCoordinator.Timing timing(org.apache.pekko.actor.typed.ActorSystem<?> system) {
    com.typesafe.config.Config dd =
        system.settings().config().getConfig("pekko.cluster.distributed-data");
    Duration gossip = dd.getDuration("gossip-interval");
    Duration delta = gossip.dividedBy(5);
    if (delta.compareTo(Duration.ofMillis(200)) < 0) {
      delta = Duration.ofMillis(200);
    }
    return ClusterCoordinator.Timing.of(
        AdaptiveRateController.Parameters.defaults().slice(),
        delta,
        dd.getDuration("notify-subscribers-interval"));
  }

  /** How long a write of the resource's return to every replica may take before it gives up. */
  static final Duration NEWS_TIMEOUT = Duration.ofSeconds(3);

  private ReplicatedCoordination() {}

  private interface Msg {}

  private enum Round implements Msg {
    INSTANCE
  }

  private record GateStatus(GateProtocol.Status status) implements Msg {}

  private record Changed(Replicator.SubscribeResponse<LWWMap<String, String>> rsp) implements Msg {}

  private record Written(Replicator.UpdateResponse<LWWMap<String, String>> rsp) implements Msg {}

  private record MemberChanged(ClusterEvent.MemberEvent event) implements Msg {}

  /**
   * The replicated map of a budget's coordination: one line per node.
   *
   * @param budgetName the budget's name
   * @return the key, {@code supervision-backoff-budget-<name>}
   */
  static Key<LWWMap<String, String>> key(String budgetName) {
    return LWWMapKey.create("supervision-backoff-budget-" + budgetName);
  }

  /**
   * The coordination behavior.
   *
   * @param budgetName the budget's name (the replicated key is derived from it)
   * @param gate the budget's gate on this node
   * @return the behavior
   */
  static Behavior<Object> create(String budgetName, ActorRef<GateProtocol.Command> gate) {
    Objects.requireNonNull(budgetName, "budgetName");
    return Behaviors.<Msg>setup(
            ctx ->
                DistributedData.withReplicatorMessageAdapter(
                    (ReplicatorMessageAdapter<Msg, LWWMap<String, String>> replicator) ->
                        Behaviors.withTimers(
                            timers -> {
                              // a logger users can name, not Pekko's ActorCell
                              ctx.setLoggerName(ReplicatedCoordination.class);
                              ClusterCoordinator.Timing timing = timing(ctx.getSystem());
                              timers.startTimerWithFixedDelay(Round.INSTANCE, timing.round());
                              return new Running(ctx, budgetName, gate, replicator, timing)
                                  .behavior();
                            })))
        .unsafeCast();
  }

  /** Encodes a report as its entry. */
  static String encode(Report r, long seq) {
    return r.state().name()
        + ' '
        + r.waiting()
        + ' '
        + (Double.isInfinite(r.rate()) ? "inf" : Double.toString(r.rate()))
        + ' '
        + r.backEpoch()
        + ' '
        + seq
        + ' '
        + r.goodput();
  }

  /**
   * Decodes an entry; {@code null} if it is not one (another version of the library). An entry
   * without a goodput (an older version's) has none ({@code NaN}).
   */
  static Report decode(long node, String entry) {
    String[] f = entry.split(" ");
    if (f.length < 4) {
      return null;
    }
    try {
      double rate = f[2].equals("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(f[2]);
      return new Report(
          node,
          State.valueOf(f[0].toUpperCase(Locale.ROOT)),
          Integer.parseInt(f[1]),
          rate,
          Long.parseLong(f[3]),
          f.length >= 6 ? Double.parseDouble(f[5]) : Double.NaN);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static final class Running {
    private final ActorContext<Msg> ctx;
    private final String budgetName;
    private final ActorRef<GateProtocol.Command> gate;
    private final ReplicatorMessageAdapter<Msg, LWWMap<String, String>> replicator;
    private final Key<LWWMap<String, String>> key;
    private final SelfUniqueAddress self;
    private final long selfId;
    private final String selfKey;
    private final Membership membership;
    private final ActorRef<GateProtocol.Status> statusAdapter;
    private final Map<Long, String> entries = new HashMap<>();
    private final Map<Long, Heard> heard = new HashMap<>();
    // the kind of each query the gate has not answered yet, oldest first: true for the one sent
    // after a decision (the gate answers its queries in the order they were sent)
    private final java.util.ArrayDeque<Boolean> pending = new java.util.ArrayDeque<>();
    private final ClusterCoordinator.Timing timing;
    private final long roundNanos;
    private final long heartbeatRounds;
    private final ClusterCoordinator.Local local;
    private long round;
    private long now;
    private String published;
    private long publishedAtRound = Long.MIN_VALUE;
    private long seq;
    private long publishedBack;
    private boolean lastCoordinated;
    private boolean lastProber;
    private long lastBack = -1; // the last decision's back epoch; -1 before the first decision
    private long heardBack; // the highest back epoch heard from another node

    Running(
        ActorContext<Msg> ctx,
        String budgetName,
        ActorRef<GateProtocol.Command> gate,
        ReplicatorMessageAdapter<Msg, LWWMap<String, String>> replicator,
        ClusterCoordinator.Timing timing) {
      this.ctx = ctx;
      this.timing = timing;
      this.roundNanos = timing.round().toNanos();
      this.heartbeatRounds = Math.max(1, timing.heartbeat().toNanos() / roundNanos);
      this.budgetName = budgetName;
      this.gate = gate;
      this.replicator = replicator;
      this.key = key(budgetName);
      this.self = DistributedData.get(ctx.getSystem()).selfUniqueAddress();
      Cluster cluster = Cluster.get(ctx.getSystem());
      this.selfId = cluster.selfMember().uniqueAddress().longUid();
      this.selfKey = Long.toString(selfId);
      this.local = new ClusterCoordinator.Local(selfId);
      this.membership = new Membership(cluster.selfMember().uniqueAddress());
      this.statusAdapter = ctx.messageAdapter(GateProtocol.Status.class, GateStatus::new);
      cluster
          .subscriptions()
          .tell(
              Subscribe.create(
                  ctx.messageAdapter(ClusterEvent.MemberEvent.class, MemberChanged::new),
                  ClusterEvent.MemberEvent.class));
      replicator.subscribe(key, Changed::new);
    }

    Behavior<Msg> behavior() {
      return Behaviors.receive(Msg.class)
          .onMessageEquals(
              Round.INSTANCE,
              () -> {
                round++;
                now = round * roundNanos;
                query(false);
                return Behaviors.same();
              })
          .onMessage(GateStatus.class, m -> onStatus(m.status()))
          .onMessage(Changed.class, m -> onChanged(m.rsp()))
          .onMessage(Written.class, m -> Behaviors.same())
          .onMessage(
              MemberChanged.class,
              m -> {
                membership.update(
                    m.event().member().uniqueAddress(),
                    m.event() instanceof ClusterEvent.MemberRemoved,
                    now);
                return Behaviors.same();
              })
          .build();
    }

    /**
     * Asks the gate for its status; {@code afterDecision} marks the query sent right after a
     * {@link GateProtocol.Coordinate}, whose answer is what this round publishes.
     */
    private void query(boolean afterDecision) {
      pending.add(afterDecision);
      gate.tell(new GateProtocol.Query(statusAdapter));
    }

    /**
     * A round's status is observed and decided on; the gate's answer to the query sent after the
     * decision (the gate handles its messages in order, so it has applied the decision) is
     * published: the line shows the state the decision left the gate in, a resume or a raised rate
     * in the same round, as the herd's exact mode models it.
     */
    private Behavior<Msg> onStatus(GateProtocol.Status status) {
      Boolean afterDecision = pending.poll();
      if (Boolean.TRUE.equals(afterDecision)) {
        publish(local.report(status.state(), status.waiting(), status.rate(), status.goodput()));
        return Behaviors.same();
      }
      Report report =
          local.observe(status.state(), status.waiting(), status.rate(), status.goodput(), now);
      int members = membership.sharing();
      long grace = timing.staleAfterNanos(members);
      java.util.List<Heard> others = counted();
      int joining = membership.joining(heard::containsKey, now, grace);
      Decision d = local.decide(timing.coordinator(members), report, members, joining, others, now);
      // the gate first: a watcher that asks for the gate's status on the event finds it changed
      gate.tell(new GateProtocol.Coordinate(d));
      tellChanges(d, members, joining, grace);
      query(true);
      return Behaviors.same();
    }

    /**
     * Logs at DEBUG and publishes a {@link BudgetEvent.CoordinationChanged} when the decision's
     * coordination, prober or back epoch differs from the last one (and at the first decision).
     */
    private void tellChanges(Decision d, int members, int joining, long grace) {
      boolean first = lastBack < 0;
      boolean raised = !first && d.backEpoch() > lastBack;
      boolean changed =
          first || d.coordinated() != lastCoordinated || d.prober() != lastProber || raised;
      if (changed || d.resume()) {
        if (ctx.getLog().isDebugEnabled()) {
          ctx.getLog()
              .debug(
                  "Restart budget [{}]: {}; {}; share {}, {} of {} members in view{}, back epoch"
                      + " {}{}{}",
                  budgetName,
                  d.coordinated()
                      ? first || lastCoordinated ? "coordinated" : "coordinated again"
                      : "deciding alone: a member's line is missing or older than the stale window"
                          + " ("
                          + Duration.ofNanos(grace).toMillis()
                          + " ms)",
                  d.prober() ? "prober" : "not prober",
                  String.format(Locale.ROOT, "%.3f", d.share()),
                  d.inView(),
                  members,
                  joining > 0 ? " (" + joining + " joining)" : "",
                  d.backEpoch(),
                  raised
                      ? d.backEpoch() > heardBack
                          ? " (raised: this node's probe found the resource back)"
                          : " (raised: another node found the resource back)"
                      : "",
                  d.resume() ? ", resuming: another node found the resource back" : "");
        }
      }
      if (changed) {
        ctx.getSystem()
            .eventStream()
            .tell(
                new EventStream.Publish<>(
                    new BudgetEvent.CoordinationChanged(
                        budgetName,
                        d.coordinated(),
                        d.prober(),
                        members,
                        d.inView(),
                        d.backEpoch(),
                        raised && d.backEpoch() > heardBack)));
      }
      lastCoordinated = d.coordinated();
      lastProber = d.prober();
      lastBack = d.backEpoch();
    }

    private java.util.List<Heard> counted() {
      java.util.List<Heard> out = new java.util.ArrayList<>(heard.size());
      for (Heard h : heard.values()) {
        if (membership.countsUid(h.report().node())) {
          out.add(h);
        }
      }
      return out;
    }

    private void publish(Report report) {
      String content = encode(report, 0);
      boolean changed = !content.equals(published);
      // a first line, even quiet, so that the others know this node has nothing to coordinate
      boolean due =
          published == null
              || !ClusterCoordinator.quiet(report) && round - publishedAtRound >= heartbeatRounds;
      if (!changed && !due) {
        return;
      }
      // the news that the resource is back goes straight to every replica (one message to each,
      // once per outage); everything else is written locally and spread by delta propagation
      boolean news = report.backEpoch() > publishedBack;
      publishedBack = report.backEpoch();
      published = content;
      publishedAtRound = round;
      String entry = encode(report, ++seq);
      Replicator.WriteConsistency consistency =
          news ? new Replicator.WriteAll(NEWS_TIMEOUT) : Replicator.writeLocal();
      replicator.askUpdate(
          replyTo ->
              new Replicator.Update<>(
                  key, LWWMap.create(), consistency, replyTo, m -> m.put(self, selfKey, entry)),
          Written::new);
    }

    private Behavior<Msg> onChanged(Replicator.SubscribeResponse<LWWMap<String, String>> rsp) {
      if (rsp instanceof Replicator.Changed<LWWMap<String, String>> changed) {
        for (Map.Entry<String, String> e : changed.get(key).getEntries().entrySet()) {
          long node;
          try {
            node = Long.parseLong(e.getKey());
          } catch (NumberFormatException notOurs) {
            continue;
          }
          if (node == selfId || e.getValue().equals(entries.get(node))) {
            continue;
          }
          entries.put(node, e.getValue());
          Report r = decode(node, e.getValue());
          if (r != null) {
            heard.put(node, new Heard(r, now));
            local.heard(r.backEpoch());
            heardBack = Math.max(heardBack, r.backEpoch());
          }
        }
      }
      return Behaviors.same();
    }
  }
}
