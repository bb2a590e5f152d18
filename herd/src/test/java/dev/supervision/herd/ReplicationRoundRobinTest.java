package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.spi.ClusterCoordinator;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How the exact mode's model of Distributed Data sends a line to the other nodes: a slice of them
 * a delta tick, round robin, from a counter that depends on when the sender's replicator started.
 */
final class ReplicationRoundRobinTest {

  static final long TICK = 400_000_000L;
  static final int NODES = 100;

  /** When each other node's line, written at {@code now}, leaves for node 0 (first in each list). */
  static long[] towardNodeZero(ClusterSpec spec, long now) {
    long[] at = new long[NODES];
    for (int sender = 1; sender < NODES; sender++) {
      at[sender] =
          ClusterGate.deltaTickNanos(sender, spec.startTicks(sender), 0, NODES - 1, TICK, now);
    }
    return at;
  }

  static ClusterSpec cluster(Duration startedEvery) {
    return new ClusterSpec(
        NODES,
        ClusterSpec.Skew.EVEN,
        ClusterSpec.Sharing.COORDINATED,
        Duration.ofNanos(TICK),
        null,
        null,
        startedEvery,
        ClusterSpec.NOTIFY_INTERVAL);
  }

  @Test
  void replicatorsStartedInTheSameTick_sendToANodeInTheSameTick() {
    long now = 10_000_000_000L;
    long[] at = towardNodeZero(cluster(Duration.ZERO), now);
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int s = 1; s < NODES; s++) {
      first = Math.min(first, at[s]);
      last = Math.max(last, at[s]);
    }
    // the senders' ticks differ only by their phases, less than a tick
    assertTrue(last - first < TICK, "spread " + (last - first));
  }

  @Test
  void replicatorsStartedASecondApart_sendToANodeOverTheWholeRound() {
    long now = 10_000_000_000L;
    long[] at = towardNodeZero(cluster(Duration.ofSeconds(1)), now);
    int size = ClusterCoordinator.Timing.sliceSize(NODES);
    int ticks = (NODES - 1 + size - 1) / size; // 10 ticks cover the 99 others
    int[] perTick = new int[ticks + 2];
    for (int s = 1; s < NODES; s++) {
      long tick = (at[s] - now) / TICK; // 0 .. ticks
      assertTrue(tick >= 0 && tick <= ticks, "sender " + s + " after " + tick + " ticks");
      perTick[(int) tick]++;
    }
    int busiest = 0;
    for (int c : perTick) {
      busiest = Math.max(busiest, c);
    }
    // spread over the round: no tick carries more than a third of the lines
    assertTrue(busiest <= (NODES - 1) / 3, "lines in the busiest tick: " + busiest);
  }

  @Test
  void everyOtherNode_isReachedWithinOneRoundOfTicks_whateverTheStart() {
    int others = NODES - 1;
    int size = ClusterCoordinator.Timing.sliceSize(NODES);
    long round = (long) ((others + size - 1) / size + 1) * TICK;
    for (long start = 0; start < 30; start += 7) {
      for (int k = 0; k < others; k++) {
        long now = 3_000_000_000L + start * 13_000_000L;
        long at = ClusterGate.deltaTickNanos(7, start, k, others, TICK, now);
        assertTrue(at > now && at - now <= round, "k " + k + " start " + start);
      }
    }
  }

  @Test
  void theStartSpan_countsInTicks_andANegativeOneIsRefused() {
    ClusterSpec spec = cluster(Duration.ofSeconds(1));
    assertEquals(0, spec.startTicks(0));
    assertEquals(2, spec.startTicks(1)); // 1 s over 400 ms ticks
    assertEquals(25, spec.startTicks(10));
    assertEquals(0, cluster(Duration.ZERO).startTicks(99));
    ScenarioException e =
        assertThrows(ScenarioException.class, () -> cluster(Duration.ofMillis(-1)));
    assertTrue(e.getMessage().contains("started-every"), e.getMessage());
  }
}
