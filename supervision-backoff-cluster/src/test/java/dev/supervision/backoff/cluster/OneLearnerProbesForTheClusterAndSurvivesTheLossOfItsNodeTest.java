package dev.supervision.backoff.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Five cluster nodes in one JVM (Artery on 127.0.0.1), one cluster-wide adaptive budget with the
 * default parameters, 200 actors placed 50/20/10/10/10 % (the oldest node, which hosts the
 * budget's learner singleton, has a 10 % part), all depending on one database: down from the start
 * until 2 s after every node's gate holds, then serving {@value #WINDOW_CAPACITY} calls per 100 ms
 * window (100 per second, the budget's initial rate). Once the ramp has begun (a tenth of the
 * actors are back), the oldest node is killed (its actor system terminated, no leave) and downed
 * from a survivor, so the learner singleton moves to the next oldest. Runs once in real time; the
 * tests check the recorded facts (test code may read the clock; the library does not).
 *
 * <p>The bounds, from the design ({@link LeaseLearner}, {@link
 * dev.supervision.backoff.rate.LeaseHolder}, the controller's defaults):
 *
 * <ul>
 *   <li>Outage: while the learner holds, the only restarts are the probes it leases, one at a time
 *       to one node, on one controller's schedule: the first 100 ms after holding, then at least 300
 *       ms apart (a slice plus the probe interval, which grows from 200 to 300 ms; the learner hears
 *       a probe's failure a report later, which only spaces them more). Over the 2 s that is at most
 *       {@code 1 + 2000 / 300} = 7 calls. Two more: a restart granted just before the last gate was
 *       seen holding may call just after, and one probe of a node whose lease lapsed on a stalled
 *       machine (its fallback, seeded by the last lease, holds, and probes {@code N} times less often
 *       than the learner). So at most {@value #PROBES_AT_MOST} calls, where five nodes probing each on
 *       its own would make 35.
 *   <li>Ramp: the learner's slow start begins at the initial rate (one window's capacity) and
 *       doubles every round trip (probation plus a slice, 200 ms, plus a report round); the failures
 *       of a rate above the capacity reach it within a report round (100 ms), before the next
 *       doubling, so the rate never passes twice the capacity. Losing the learner does not raise it:
 *       the nodes' fallbacks go on at their last leases' rates (which sum to the learner's) and the
 *       new learner takes over from their reports at the sum of their rates. A loaded machine's stall
 *       can push one window's calls into the next: no window is offered more than 3 x its capacity.
 *   <li>Handover: the new learner is on a survivor; every survivor holds a lease from it, counting
 *       the 4 survivors, and every actor of the survivors is back.
 * </ul>
 */
final class OneLearnerProbesForTheClusterAndSurvivesTheLossOfItsNodeTest {

  /** Actors by age rank of their node: the youngest first, the oldest (the learner's) last. */
  static final int[] PLACEMENT = {100, 40, 20, 20, 20};

  static final int WINDOW_CAPACITY = 10;
  static final long WINDOW_NANOS = 100_000_000L;
  static final Duration OUTAGE_AFTER_HOLDING = Duration.ofSeconds(2);
  static final int PROBES_AT_MOST = 1 + 2000 / 300 + 2;
  static final String NAME = "one-learner-db";
  static final RestartBudget BUDGET = RestartBudget.adaptive(NAME).clusterWide();

  /** The nodes, youngest first: {@code nodes.get(PLACEMENT.length - 1)} is the oldest. */
  static final List<ActorSystem<Void>> nodes = new ArrayList<>();

  static final AtomicBoolean up = new AtomicBoolean(false);
  static final Map<Long, AtomicInteger> offered = new ConcurrentHashMap<>();
  static final AtomicInteger callsWhileDown = new AtomicInteger();
  static final AtomicInteger[] recovered = new AtomicInteger[PLACEMENT.length];
  static final int OLDEST = PLACEMENT.length - 1;
  static long t0;
  static int callsBeforeHolding;
  static long outageEndAt;
  static long killedAt;
  static int survivorsBackAtKill;
  static long backAt;
  static long leasedAgainAt;

  static Config config() {
    return ConfigFactory.parseString(
            String.join(
                "\n",
                TestNodes.MANY,
                // the killed node is found unreachable sooner (its removal waits for it)
                "pekko.cluster.failure-detector.heartbeat-interval = 200ms",
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1500ms"))
        .withFallback(ConfigFactory.load());
  }

  /** The database: down, or up with a capacity per 100 ms window of real time. */
  static boolean call() {
    long window = (System.nanoTime() - t0) / WINDOW_NANOS;
    int n = offered.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
    if (!up.get()) {
      callsWhileDown.incrementAndGet();
      return false;
    }
    return n <= WINDOW_CAPACITY;
  }

  static Behavior<Void> cell(int node) {
    return Behaviors.setup(
        ctx -> {
          if (!call()) {
            throw new IllegalStateException("database unavailable");
          }
          recovered[node].incrementAndGet();
          return Behaviors.empty();
        });
  }

  static int recoveredSum() {
    return Arrays.stream(recovered).mapToInt(AtomicInteger::get).sum();
  }

  @BeforeAll
  static void runScenario() throws Exception {
    for (int i = 0; i < PLACEMENT.length; i++) {
      recovered[i] = new AtomicInteger();
    }
    List<ActorSystem<Void>> started = TestNodes.start(PLACEMENT.length, "one-learner", config());
    TestNodes.joinTheFirst(started, Duration.ofSeconds(60));
    // youngest first: the singleton runs on the oldest, which gets the last (10 %) part
    Comparator<ActorSystem<Void>> byAge =
        (a, b) -> {
          Member ma = Cluster.get(a).selfMember();
          Member mb = Cluster.get(b).selfMember();
          return ma.isOlderThan(mb) ? 1 : mb.isOlderThan(ma) ? -1 : 0;
        };
    nodes.addAll(started.stream().sorted(byAge).toList());
    for (ActorSystem<Void> node : nodes) {
      RestartBudgets.get(node).gate(BUDGET); // the gate, its learner client, the learner
    }
    // every node holds a lease from the learner, which counts every node, before the herd fails
    TestNodes.awaitEveryLease(nodes, NAME);
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    t0 = System.nanoTime();
    for (int i = 0; i < nodes.size(); i++) {
      for (int a = 0; a < PLACEMENT[i]; a++) {
        nodes
            .get(i)
            .systemActorOf(BackoffSupervisor.wrap(cell(i), policy), "cell-" + a, Props.empty());
      }
    }
    // the calls that count start when every node holds: before, a steady lease lets restarts
    // through until the node's steady fuse trips
    TestNodes.awaitEveryGate(nodes, NAME, State.HOLDING);
    callsBeforeHolding = callsWhileDown.get();
    Thread.sleep(OUTAGE_AFTER_HOLDING.toMillis()); // the outage, in real time
    outageEndAt = System.nanoTime();
    up.set(true);
    // the ramp has begun: kill the node that hosts the learner (the oldest)
    TestNodes.await(Duration.ofSeconds(30), () -> recoveredSum() >= 20);
    ActorSystem<Void> oldest = nodes.get(OLDEST);
    Address gone = Cluster.get(oldest).selfMember().address();
    killedAt = System.nanoTime();
    survivorsBackAtKill = recoveredSum() - recovered[OLDEST].get();
    oldest.terminate();
    oldest.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    List<ActorSystem<Void>> survivors = nodes.subList(0, OLDEST);
    Cluster.get(survivors.get(0)).manager().tell(new Down(gone));
    TestNodes.await(
        Duration.ofSeconds(60),
        () -> {
          for (int i = 0; i < OLDEST; i++) {
            if (recovered[i].get() < PLACEMENT[i]) {
              return false;
            }
          }
          return true;
        });
    backAt = System.nanoTime();
    TestNodes.awaitEveryLease(survivors, NAME);
    leasedAgainAt = System.nanoTime();
  }

  @AfterAll
  static void shutdown() throws Exception {
    TestNodes.terminate(nodes.subList(0, OLDEST));
  }

  @Test
  void duringTheOutage_theClusterProbesLikeOneNode() {
    int afterHolding = callsWhileDown.get() - callsBeforeHolding;
    System.out.printf(
        "one learner: %d calls while down once every node held (at most %d), %d before%n",
        afterHolding, PROBES_AT_MOST, callsBeforeHolding);
    assertTrue(
        afterHolding <= PROBES_AT_MOST,
        "calls while down after every node held: " + afterHolding + ", bound " + PROBES_AT_MOST);
    assertTrue(afterHolding >= 1, "the cluster probed during the outage");
  }

  @Test
  void afterTheLearnersNodeIsKilled_everyActorOfTheSurvivorsIsBack_underANewLearner() {
    for (int i = 0; i < OLDEST; i++) {
      assertEquals(PLACEMENT[i], recovered[i].get(), "node " + i);
    }
    for (int i = 0; i < OLDEST; i++) {
      int index = i;
      assertTrue(
          TestNodes.coordination(nodes.get(i), NAME)
              .filter(c -> c.coordinated() && c.inView() == OLDEST)
              .isPresent(),
          "node " + index + " holds a lease from a learner that counts the survivors");
    }
    int survivorsActors = Arrays.stream(PLACEMENT).sum() - PLACEMENT[OLDEST];
    assertTrue(
        survivorsBackAtKill < survivorsActors,
        "the kill came during the ramp: "
            + survivorsBackAtKill
            + " of "
            + survivorsActors
            + " back");
  }

  @Test
  void theDatabaseIsNeverOfferedMoreThanThreeTimesAWindowsCapacity() {
    long outageWindow = (outageEndAt - t0) / WINDOW_NANOS;
    int busiest = TestNodes.busiestWindowAfter(offered, outageWindow);
    System.out.printf(
        "one learner: busiest window after the outage %d (capacity %d), survivors back %.2f s"
            + " after the outage (%.2f s after the kill), leased again %.2f s after the kill%n",
        busiest,
        WINDOW_CAPACITY,
        (backAt - outageEndAt) / 1e9,
        (backAt - killedAt) / 1e9,
        (leasedAgainAt - killedAt) / 1e9);
    assertTrue(
        busiest <= 3 * WINDOW_CAPACITY, "busiest window after the outage offered " + busiest);
  }
}
