package dev.supervision.backoff.rate;

import dev.supervision.backoff.internal.util.Check;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.Objects;

/**
 * What the learner of a cluster-wide adaptive budget allows one node for the coming round: the
 * learner's state, this node's whole permits (paced by the node over the round), whether its one
 * permit is the cluster's probe, and how long the lease stays valid if no newer one arrives. An
 * immutable value, safe to pass between threads.
 *
 * @param state the learner's state: {@link State#STEADY} with {@link #UNLIMITED} permits lets
 *     restarts pass at once; {@link State#HOLDING} lets none through but the probe, if {@code probe};
 *     {@link State#RAMPING} (or {@link State#STEADY} under a ceiling) lets {@code permits} through
 * @param permits this node's permits for the round, {@code >= 0}, or {@link #UNLIMITED}
 * @param probe whether the node's one permit is the cluster's probe while holding
 * @param round the round over which the node paces its permits; also the learner's interval
 * @param validFor how long after its arrival the lease stands if no newer one arrives: then the
 *     node falls back on its own controller ({@link LeaseHolder})
 * @param acknowledged the sequence number of the last report of this node that the learner had
 *     taken into account, or {@code -1}
 * @param learnerRate the learner's rate, permits per second ({@code +Infinity} for no limit, 0
 *     while holding)
 * @param inView how many nodes the learner counted
 * @param clusterWaiting the actors waiting over the nodes the learner counted, as last reported
 */
public record Lease(
    State state,
    int permits,
    boolean probe,
    Duration round,
    Duration validFor,
    long acknowledged,
    double learnerRate,
    int inView,
    long clusterWaiting) {

  /** The permits of a lease that sets no limit (steady, no ceiling). */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  /**
   * Checks the value.
   *
   * @param state see the record's description
   * @param permits see the record's description
   * @param probe see the record's description
   * @param round see the record's description
   * @param validFor see the record's description
   * @param acknowledged see the record's description
   * @param learnerRate see the record's description
   * @param inView see the record's description
   * @param clusterWaiting see the record's description
   * @throws NullPointerException if {@code state}, {@code round} or {@code validFor} is null
   * @throws IllegalArgumentException if {@code permits < 0}, {@code round} is not positive or
   *     {@code validFor} is shorter than {@code round} (the message names it)
   */
  public Lease {
    Objects.requireNonNull(state, "state must not be null");
    Check.positive(round, "round");
    Check.positive(validFor, "validFor");
    Check.argument(permits >= 0, "permits", ">= 0", permits);
    Check.argument(validFor.compareTo(round) >= 0, "validFor", ">= round", validFor);
  }

  /** {@return whether the lease sets no limit: {@code permits == UNLIMITED}} */
  public boolean unlimited() {
    return permits == UNLIMITED;
  }
}
