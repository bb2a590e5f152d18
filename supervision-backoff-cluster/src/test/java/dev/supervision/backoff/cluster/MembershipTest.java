package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.UniqueAddress;
import org.junit.jupiter.api.Test;

/** Which members share a cluster-wide budget: all from joining until removed, and always this node. */
final class MembershipTest {

  static UniqueAddress node(int port) {
    return new UniqueAddress(new Address("pekko", "sys", "127.0.0.1", port), port * 10L);
  }

  @Test
  void beforeJoining_thisNodeAloneHoldsTheWholeBudget() {
    assertEquals(1, new Membership(node(1)).sharing());
  }

  @Test
  void everyStatusCountsUntilRemoved() {
    Membership m = new Membership(node(1));
    assertEquals(1, m.update(node(1), false)); // this node joining, then up
    assertEquals(2, m.update(node(2), false)); // joining: already counted
    assertEquals(2, m.update(node(2), false)); // weakly up, up, leaving, exiting, down: no change
    assertEquals(3, m.update(node(3), false));
    assertEquals(2, m.update(node(2), true)); // removed
    assertEquals(2, m.update(node(2), true)); // a second removal changes nothing
  }

  @Test
  void thisNodeCountsOnceWhetherOrNotItIsAMember() {
    Membership m = new Membership(node(1));
    assertEquals(2, m.update(node(2), false)); // the others are known before this node is
    assertEquals(2, m.update(node(1), false));
    assertEquals(2, m.update(node(1), true)); // this node removed: still one of the sharers
  }

  @Test
  void aRestartedNodeIsANewMemberUntilItsOldIncarnationIsRemoved() {
    Membership m = new Membership(node(1));
    m.update(node(1), false);
    UniqueAddress old = node(2);
    UniqueAddress restarted = new UniqueAddress(old.address(), old.longUid() + 1);
    m.update(old, false);
    assertEquals(3, m.update(restarted, false));
    assertEquals(2, m.update(old, true));
  }

  @Test
  void aMemberKnownAfterThisNode_withoutALine_isJoiningForTheGrace_andTheOthersNever() {
    Membership m = new Membership(node(1));
    m.update(node(2), false, 0); // there before this node: a missing line is not a joiner's
    m.update(node(1), false, 0);
    m.update(node(3), false, 1_000);
    assertEquals(1, m.joining(uid -> false, 2_000, 5_000), "node 3 only");
    assertEquals(0, m.joining(uid -> uid == 30L, 2_000, 5_000), "node 3 has written its line");
    assertEquals(0, m.joining(uid -> false, 6_000, 5_000), "the grace is over");
    assertEquals(0, new Membership(node(1)).joining(uid -> false, 0, 5_000), "not a member yet");
  }
}
