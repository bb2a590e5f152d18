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
}
