package dev.supervision.backoff.cluster;

import dev.supervision.backoff.rate.AdaptiveRateController;
import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.rate.Lease;
import dev.supervision.backoff.rate.NodeReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The one learner of a cluster-wide adaptive budget: the same {@link AdaptiveRateController} one
 * node runs, fed with what every node reports, and a share of its permits leased to each node every
 * round. A pure class: no actor, no clock; time is the {@code nowNanos} the caller passes in (the
 * learner actor, or a simulation), never decreasing.
 *
 * <h2>How it learns</h2>
 *
 * <p>A node's {@link NodeReport} counts as the controller's events when it arrives: its starts as
 * restarts started now (the probe's with the time the probe was leased), its failures against the
 * time at which the report that carried their start arrived, so that a restart's start and its
 * failure fall into the controller's slices as far apart as they happened. The controller thus
 * sees the cluster as one node's gate would, a report's delay late.
 *
 * <h2>How it leases (every round, one {@link AdaptiveRateController#SLICE})</h2>
 *
 * <ul>
 *   <li>{@link State#STEADY} without a ceiling: every node may restart at once ({@link
 *       Lease#UNLIMITED}).
 *   <li>{@link State#HOLDING}: when the controller lets a probe through, the node with the most
 *       uncovered waiting actors gets it; the others get nothing. Exactly one probe at a time, as on
 *       one node.
 *   <li>Otherwise: the controller's permits for the round, as many as actors wait, split over the
 *       nodes in proportion to their uncovered waiting actors, in whole permits (largest remainders
 *       first, ties to the node served longest ago). The sum never exceeds what the controller
 *       grants; a node that does not use its permits gives them back by asking for fewer next time.
 * </ul>
 *
 * <p>A node that has not reported for a lease's validity is no longer counted. A new learner starts
 * from the nodes' first reports ({@link AdaptiveRateController#takeOver}): holding if any node
 * holds, ramping at the sum of the ramping nodes' rates if any ramps, steady otherwise.
 *
 * <p>Not thread-safe: one owner.
 */
public final class LeaseLearner {

  private static final long NONE = Long.MIN_VALUE;

  /** How many rounds a lease stands without a newer one: a lost lease or two is not a fallback. */
  public static final int VALID_ROUNDS = 5;

  private final AdaptiveRateController controller;
  private final Duration round;
  private final Duration validFor;
  private final long validForNanos;
  private final Map<Long, Node> nodes = new TreeMap<>();
  private boolean started;
  private long probeLeasedAt = NONE;
  private long roundNumber;

  /** What the learner knows of one node. */
  private static final class Node {
    long heardAt = NONE;
    long lastSequence = -1;
    int waiting;
    int uncovered;
    State state = State.STEADY;
    double rate = Double.POSITIVE_INFINITY;
    long servedRound = -1;

    /** The learner's time at which each recent report of the node arrived, by its sequence. */
    final LinkedHashMap<Long, Long> arrivals =
        new LinkedHashMap<>() {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > 256;
          }
        };
  }

  /**
   * A learner.
   *
   * @param parameters the budget's controller parameters (the whole cluster's)
   * @param listener told of the controller's changes, on the caller's thread
   * @throws NullPointerException if an argument is null
   */
  public LeaseLearner(Parameters parameters, AdaptiveRateController.Listener listener) {
    this.controller = new AdaptiveRateController(parameters, listener);
    this.round = AdaptiveRateController.SLICE;
    this.validFor = round.multipliedBy(VALID_ROUNDS);
    this.validForNanos = validFor.toNanos();
  }

  /**
   * A node's report arrived.
   *
   * @param node the node's id
   * @param report its report
   * @param nowNanos the time now
   * @throws NullPointerException if {@code report} is null
   */
  public void onReport(long node, NodeReport report, long nowNanos) {
    Objects.requireNonNull(report, "report must not be null");
    Node n = nodes.computeIfAbsent(node, k -> new Node());
    if (report.sequence() <= n.lastSequence) {
      return; // a report seen already
    }
    int ordinary = report.started();
    if (report.probeStarted() && probeLeasedAt != NONE && ordinary > 0) {
      controller.onStarted(nowNanos, probeLeasedAt);
      probeLeasedAt = NONE;
      ordinary--;
    }
    for (int i = 0; i < ordinary; i++) {
      controller.onStarted(nowNanos, nowNanos);
    }
    n.arrivals.put(report.sequence(), nowNanos);
    for (long in : report.failedStartedIn()) {
      Long at = n.arrivals.get(in);
      controller.onFailure(nowNanos, at == null ? AdaptiveRateController.NOT_GRANTED : at);
    }
    for (int i = 0; i < report.failedNotGranted(); i++) {
      controller.onFailure(nowNanos, AdaptiveRateController.NOT_GRANTED);
    }
    n.heardAt = nowNanos;
    n.lastSequence = report.sequence();
    n.waiting = report.waiting();
    n.uncovered = report.uncovered();
    n.state = report.state();
    n.rate = report.rate();
  }

  /**
   * Forgets a node (it left the cluster).
   *
   * @param node the node's id
   */
  public void remove(long node) {
    nodes.remove(node);
  }

  /**
   * A round: the controller's slice, then a lease for every node heard within a lease's validity.
   * Call it every {@link #round()}.
   *
   * @param nowNanos the time now
   * @return the leases, by node id (empty before the first report)
   */
  public Map<Long, Lease> round(long nowNanos) {
    roundNumber++;
    List<Map.Entry<Long, Node>> counted = new ArrayList<>();
    nodes.entrySet().removeIf(e -> nowNanos - e.getValue().heardAt > validForNanos);
    counted.addAll(nodes.entrySet());
    if (counted.isEmpty()) {
      controller.onSlice(nowNanos, 0);
      return Map.of();
    }
    if (!started) {
      started = true;
      takeOverFromReports(nowNanos, counted);
    }
    long waiting = 0;
    for (Map.Entry<Long, Node> e : counted) {
      waiting += e.getValue().waiting;
    }
    controller.onSlice(nowNanos, (int) Math.min(Integer.MAX_VALUE, waiting));
    Map<Long, Integer> permits = new HashMap<>();
    long probeTo = NONE;
    State state = controller.state();
    boolean unlimited = state == State.STEADY && controller.rate() == Double.POSITIVE_INFINITY;
    if (state == State.HOLDING) {
      Map.Entry<Long, Node> most = null;
      for (Map.Entry<Long, Node> e : counted) {
        if (e.getValue().uncovered > 0
            && (most == null || e.getValue().uncovered > most.getValue().uncovered)) {
          most = e;
        }
      }
      if (most != null && controller.tryGrant(nowNanos)) {
        probeTo = most.getKey();
        probeLeasedAt = nowNanos;
        permits.put(probeTo, 1);
      }
    } else if (!unlimited) {
      long want = 0;
      for (Map.Entry<Long, Node> e : counted) {
        want += e.getValue().uncovered;
      }
      int granted = 0;
      while (granted < want && controller.tryGrant(nowNanos)) {
        granted++;
      }
      permits = split(granted, counted);
    }
    double rate = controller.rate();
    Map<Long, Lease> leases = new LinkedHashMap<>();
    for (Map.Entry<Long, Node> e : counted) {
      int p = unlimited ? Lease.UNLIMITED : permits.getOrDefault(e.getKey(), 0);
      leases.put(
          e.getKey(),
          new Lease(
              state,
              p,
              e.getKey() == probeTo,
              round,
              validFor,
              e.getValue().lastSequence,
              rate,
              counted.size(),
              waiting));
    }
    return leases;
  }

  /**
   * Splits {@code total} permits over the nodes in proportion to their uncovered waiting actors, in
   * whole permits: each its floor, then one more to the largest remainders, ties to the node served
   * longest ago (then the smallest id).
   */
  private Map<Long, Integer> split(int total, List<Map.Entry<Long, Node>> counted) {
    Map<Long, Integer> out = new HashMap<>();
    if (total == 0) {
      return out;
    }
    long want = 0;
    for (Map.Entry<Long, Node> e : counted) {
      want += e.getValue().uncovered;
    }
    if (want == 0) {
      return out;
    }
    int given = 0;
    List<Map.Entry<Long, Node>> byRemainder = new ArrayList<>();
    Map<Long, Double> remainder = new HashMap<>();
    for (Map.Entry<Long, Node> e : counted) {
      double exact = (double) total * e.getValue().uncovered / want;
      int floor = (int) Math.floor(exact);
      out.put(e.getKey(), floor);
      given += floor;
      if (e.getValue().uncovered > floor) {
        remainder.put(e.getKey(), exact - floor);
        byRemainder.add(e);
      }
    }
    byRemainder.sort(
        (a, b) -> {
          int r = Double.compare(remainder.get(b.getKey()), remainder.get(a.getKey()));
          return r != 0 ? r : Long.compare(a.getValue().servedRound, b.getValue().servedRound);
        });
    for (int i = 0; given < total && i < byRemainder.size(); i++) {
      Map.Entry<Long, Node> e = byRemainder.get(i);
      out.merge(e.getKey(), 1, Integer::sum);
      given++;
    }
    for (Map.Entry<Long, Node> e : counted) {
      if (out.getOrDefault(e.getKey(), 0) > 0) {
        e.getValue().servedRound = roundNumber;
      }
    }
    return out;
  }

  private void takeOverFromReports(long nowNanos, List<Map.Entry<Long, Node>> counted) {
    boolean holding = false;
    double ramping = 0;
    for (Map.Entry<Long, Node> e : counted) {
      Node n = e.getValue();
      holding |= n.state == State.HOLDING;
      if (n.state == State.RAMPING && Double.isFinite(n.rate)) {
        ramping += n.rate;
      }
    }
    if (holding) {
      controller.takeOver(State.HOLDING, 0, nowNanos);
    } else if (ramping > 0) {
      controller.takeOver(State.RAMPING, ramping, nowNanos);
    }
  }

  /**
   * The learner's interval: the controller's slice.
   *
   * @return the round
   */
  public Duration round() {
    return round;
  }

  /**
   * How long a lease stands without a newer one: {@link #VALID_ROUNDS} rounds.
   *
   * @return the validity
   */
  public Duration validFor() {
    return validFor;
  }

  /**
   * The controller's state.
   *
   * @return the state
   */
  public State state() {
    return controller.state();
  }

  /**
   * The controller's rate, permits per second.
   *
   * @return the rate
   */
  public double rate() {
    return controller.rate();
  }

  /**
   * How many nodes the learner counts now.
   *
   * @return the count
   */
  public int nodes() {
    return nodes.size();
  }
}
