package dev.supervision.backoff.cluster;

import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * The count of nodes that share a cluster-wide budget, as one node sees it: every member from the
 * moment it is known (joining) until it is removed, whatever its status in between (weakly up, up,
 * leaving, exiting, down) and whether or not it is reachable, and always this node itself. Confined to
 * the gate actor that owns it; not thread-safe.
 *
 * <p>Why so many: each node enforces {@code 1/N} of the limit, so the limit holds only while every
 * node that may still grant restarts is counted. A joining node may already run actors; a leaving or
 * exiting node still runs its entities until they are handed off; an unreachable node may be alive on
 * the other side of a partition; a downed node runs until it learns that it is down. Counting too many
 * only slows restarts for a while; counting too few breaks the limit.
 */
final class Membership {

  private final UniqueAddress self;
  private final Set<UniqueAddress> members = new HashSet<>();

  /**
   * An empty membership.
   *
   * @param self this node
   */
  Membership(UniqueAddress self) {
    this.self = self;
  }

  /**
   * Records a member's new status.
   *
   * @param member the member
   * @param removed whether it was removed from the cluster (any other status keeps it counted)
   * @return the count after the change
   */
  int update(UniqueAddress member, boolean removed) {
    if (removed) {
      members.remove(member);
    } else {
      members.add(member);
    }
    return sharing();
  }

  /**
   * How many nodes share the budget: the members known and not removed, plus this node if it is not
   * one of them yet (before it joined, or after it was removed).
   *
   * @return the count, {@code >= 1}
   */
  int sharing() {
    return members.contains(self) ? members.size() : members.size() + 1;
  }
}
