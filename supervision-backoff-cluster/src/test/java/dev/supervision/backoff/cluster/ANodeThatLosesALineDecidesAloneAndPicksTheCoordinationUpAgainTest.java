package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.ClusterCoordinator;
import dev.supervision.backoff.spi.GateProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Two nodes over Artery on 127.0.0.1 share a cluster-wide adaptive budget; the second holds with
 * actors waiting, so its line is not quiet. When it dies without leaving, its line goes stale on
 * the first node, which falls back to deciding alone once the stale window has passed (not
 * before), and says so in a DEBUG line and a {@link BudgetEvent.CoordinationChanged}; when the
 * dead node is downed and removed, the first node's view is complete again, and it says that too.
 * Distributed Data is set to replicate faster than Pekko's defaults (a 100 ms notification
 * interval), so the stale window is 1.9 s and the test short; the bounds come from {@link
 * ReplicatedCoordination#timing}.
 */
final class ANodeThatLosesALineDecidesAloneAndPicksTheCoordinationUpAgainTest {

  static final String NAME = "lost-line-db";
  static final RestartBudget BUDGET = RestartBudget.adaptive(NAME).clusterWide();
  static final int WAITING = 3;
  static volatile boolean armed;
  static volatile long deadAt;

  static Config config() {
    return ConfigFactory.parseString(
            String.join(
                "\n",
                "pekko.cluster.distributed-data.gossip-interval = 1s",
                "pekko.cluster.distributed-data.notify-subscribers-interval = 100ms",
                "pekko.actor.testkit.typed.filter-leeway = 10s"))
        .withFallback(AdaptiveClusterBudgetMultiNodeTest.config());
  }

  static final ActorSystem<Void> first =
      ActorSystem.create(Behaviors.empty(), "lost-line", config());
  static final ActorSystem<Void> second =
      ActorSystem.create(Behaviors.empty(), "lost-line", config());

  @AfterAll
  static void shutdown() throws Exception {
    TestNodes.terminate(List.of(first, second));
  }

  static Optional<GateProtocol.Coordination> coordination(ActorSystem<?> node) {
    try {
      return RestartBudgets.get(node)
          .status(NAME)
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS)
          .flatMap(GateProtocol.Status::coordination);
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  @Test
  void aStaleLineSendsTheNodeAlone_afterTheStaleWindow_andItsRemovalBringsTheCoordinationBack()
      throws Exception {
    Address address = Cluster.get(first).selfMember().address();
    Cluster.get(first).manager().tell(Join.create(address));
    Cluster.get(second).manager().tell(Join.create(address));
    TestNodes.await(
        Duration.ofSeconds(30),
        () -> TestNodes.upMembers(first) == 2 && TestNodes.upMembers(second) == 2);
    ClusterCoordinator.Timing timing = ReplicatedCoordination.timing(first);
    long stale = timing.staleAfterNanos(2);
    assertEquals(1_900_000_000L, stale, "settle 0.4 s + three heartbeats of 0.5 s");
    assertEquals(
        300_000_000L,
        timing.raiseAfterLossNanos(),
        "the hold-off after a loss: not one 100 ms notification, but the 200 ms delta interval (a"
            + " fifth of the 1 s gossip interval) and a slice");

    TestProbe<BudgetEvent.CoordinationChanged> events = TestProbe.create(first);
    ActorRef<BudgetEvent> filter =
        first.systemActorOf(
            Behaviors.receive(BudgetEvent.class)
                .onAnyMessage(
                    e -> {
                      if (armed
                          && e instanceof BudgetEvent.CoordinationChanged c
                          && c.budget().equals(NAME)) {
                        events.ref().tell(c);
                      }
                      return Behaviors.same();
                    })
                .build(),
            "coordination-events",
            Props.empty());
    first.eventStream().tell(new EventStream.Subscribe<>(BudgetEvent.class, filter));
    RestartBudgets.get(first).gate(BUDGET);
    // the second node's actors never start: its budget holds with them waiting, its line not quiet
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofMillis(500))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    for (int i = 0; i < WAITING; i++) {
      second.systemActorOf(
          BackoffSupervisor.wrap(
              Behaviors.<Void>setup(
                  ctx -> {
                    throw new IllegalStateException("database unavailable");
                  }),
              policy),
          "cell-" + i,
          Props.empty());
    }
    // the first node sees the second's line: coordinated, two nodes in view, its actors waiting
    TestNodes.await(
        Duration.ofSeconds(30),
        () ->
            coordination(first)
                .filter(c -> c.coordinated() && c.inView() == 2 && c.clusterWaiting() == WAITING)
                .isPresent());
    armed = true; // the changes from here on: the first decisions are behind

    long[] killedAt = new long[1];
    BudgetEvent.CoordinationChanged alone =
        LoggingTestKit.debug("Restart budget [" + NAME + "]: deciding alone")
            .withLoggerName(ReplicatedCoordination.class.getName())
            .expect(
                first,
                () -> {
                  killedAt[0] = System.nanoTime();
                  second.terminate(); // without leaving: its line just stops
                  second.getWhenTerminated().thenRun(() -> deadAt = System.nanoTime());
                  return awaitChange(events, false);
                });
    long now = System.nanoTime();
    long aloneAfter = now - killedAt[0];
    assertEquals(
        new BudgetEvent.CoordinationChanged(NAME, false, true, 2, 1, 0, false),
        alone,
        "alone: the second node is still counted, its line no longer");
    // the line it wrote last is at most a heartbeat older than its death: the window runs from it
    assertTrue(
        aloneAfter >= stale - timing.heartbeat().toNanos(),
        "alone " + aloneAfter / 1_000_000 + " ms after the kill, before the stale window");
    // and at most a stale window after the last line can have reached it (a settle time after the
    // node's death) and the next round; plus 2 s for a loaded machine's late timers
    long allowance = 2_000_000_000L;
    long latest = stale + timing.settleNanos(2) + timing.round().toNanos() + allowance;
    long dead = deadAt == 0 ? now : deadAt; // not terminated yet: alone before its death
    assertTrue(now - dead <= latest, "alone " + (now - dead) / 1_000_000 + " ms after the death");
    assertFalse(coordination(first).orElseThrow().coordinated());

    second.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    BudgetEvent.CoordinationChanged back =
        LoggingTestKit.debug("Restart budget [" + NAME + "]: coordinated again")
            .withLoggerName(ReplicatedCoordination.class.getName())
            .expect(
                first,
                () -> {
                  Cluster.get(first)
                      .manager()
                      .tell(new Down(Cluster.get(second).selfMember().address()));
                  return awaitChange(events, true);
                });
    assertEquals(
        new BudgetEvent.CoordinationChanged(NAME, true, false, 1, 1, 0, false),
        back,
        "the dead node removed: one node, its view complete; nothing waits here, so no prober");
    System.out.printf(
        "lost line: alone %d ms after the kill (stale window %d ms)%n",
        aloneAfter / 1_000_000, stale / 1_000_000);
  }

  /** The next change whose {@code coordinated} is {@code coordinated}, skipping prober changes. */
  private static BudgetEvent.CoordinationChanged awaitChange(
      TestProbe<BudgetEvent.CoordinationChanged> events, boolean coordinated) {
    while (true) {
      BudgetEvent.CoordinationChanged c = events.receiveMessage(Duration.ofSeconds(30));
      if (c.coordinated() == coordinated) {
        return c;
      }
    }
  }
}
