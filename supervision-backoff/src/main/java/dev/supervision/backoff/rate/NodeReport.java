package dev.supervision.backoff.rate;

import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.util.List;
import java.util.Objects;

/**
 * What one node's gate of a cluster-wide adaptive budget tells the budget's learner since its last
 * report: what the learner's controller needs to learn as one node would (restarts started, their
 * failures, actors waiting), and the node's own state and rate (which a new learner may take over).
 * Made by {@link LeaseHolder#report}; an immutable value, safe to pass between threads.
 *
 * @param sequence this node's report number, from 0, one more for each report
 * @param waiting the actors waiting for a permit on the node
 * @param uncovered the waiting actors the node's current lease does not cover (its permits left
 *     are subtracted): what the node asks the learner for
 * @param started the granted restarts whose actors started since the last report
 * @param probeStarted whether one of them is the probe of the learner's lease
 * @param failedNotGranted failures of actors that were not restarted by a recent permit
 * @param failedStartedIn for each failure of a recently restarted actor, the sequence number of the
 *     report that carried its start (this one's, if it started since the last report)
 * @param state the node's state: its lease's, or on its fallback, its own controller's
 * @param rate the node's rate, permits per second ({@code +Infinity} for no limit)
 */
public record NodeReport(
    long sequence,
    int waiting,
    int uncovered,
    int started,
    boolean probeStarted,
    int failedNotGranted,
    List<Long> failedStartedIn,
    State state,
    double rate) {

  /**
   * Checks the value and copies the list.
   *
   * @param sequence see the record's description
   * @param waiting see the record's description
   * @param uncovered see the record's description
   * @param started see the record's description
   * @param probeStarted see the record's description
   * @param failedNotGranted see the record's description
   * @param failedStartedIn see the record's description
   * @param state see the record's description
   * @param rate see the record's description
   * @throws NullPointerException if {@code failedStartedIn} or {@code state} is null
   */
  public NodeReport {
    failedStartedIn = List.copyOf(failedStartedIn);
    Objects.requireNonNull(state, "state must not be null");
  }
}
