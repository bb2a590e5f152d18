package dev.supervision.backoff.cluster;

import java.util.HashMap;
import java.util.Map;
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
  private final Map<UniqueAddress, Long> members = new HashMap<>();
  private long selfSince = Long.MIN_VALUE;

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
    return update(member, removed, 0);
  }

  /**
   * Records a member's new status, and when it was first known (for {@link #joining}).
   *
   * @param member the member
   * @param removed whether it was removed from the cluster
   * @param nowNanos the time now, on the caller's time line
   * @return the count after the change
   */
  int update(UniqueAddress member, boolean removed, long nowNanos) {
    if (removed) {
      members.remove(member);
    } else {
      members.putIfAbsent(member, nowNanos);
      if (member.equals(self) && selfSince == Long.MIN_VALUE) {
        selfSince = nowNanos;
      }
    }
    return sharing();
  }

  /**
   * How many counted members are joining, as this node sees them: first known after this node
   * itself was, less than {@code graceNanos} ago, and without a line ({@code heard} says which uids
   * have one). A member that was there when this node joined is never joining: a missing line of
   * its is a node cut off, or not yet heard.
   *
   * @param heard whether a uid has a line
   * @param nowNanos the time now
   * @param graceNanos how long a member may be joining
   * @return the count
   */
  int joining(java.util.function.LongPredicate heard, long nowNanos, long graceNanos) {
    if (selfSince == Long.MIN_VALUE) {
      return 0; // this node is not a member yet: every other member was there before it
    }
    int n = 0;
    for (Map.Entry<UniqueAddress, Long> m : members.entrySet()) {
      long since = m.getValue();
      if (!m.getKey().equals(self)
          && since > selfSince
          && nowNanos - since < graceNanos
          && !heard.test(m.getKey().longUid())) {
        n++;
      }
    }
    return n;
  }

  /**
   * How many nodes share the budget: the members known and not removed, plus this node if it is not
   * one of them yet (before it joined, or after it was removed).
   *
   * @return the count, {@code >= 1}
   */
  int sharing() {
    return members.containsKey(self) ? members.size() : members.size() + 1;
  }

  /**
   * Whether a node, named by its {@code UniqueAddress} uid, is counted (this node always is).
   *
   * @param uid the node's {@code longUid}
   * @return {@code true} if counted
   */
  boolean countsUid(long uid) {
    if (self.longUid() == uid) {
      return true;
    }
    for (UniqueAddress m : members.keySet()) {
      if (m.longUid() == uid) {
        return true;
      }
    }
    return false;
  }
}
