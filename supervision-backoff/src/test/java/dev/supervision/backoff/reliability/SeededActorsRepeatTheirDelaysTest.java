package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code withRandomSeed}, an actor at the same path gets the same delays every time it is
 * spawned; another path or another seed gets other delays.
 */
final class SeededActorsRepeatTheirDelaysTest {

  // Created in @BeforeAll, not in a static initializer: a runner that runs the class again in the
  // same JVM (PIT does, once per mutant) must get a live system, not the one @AfterAll shut down.
  static ActorTestKit testKit;
  static ManualTime time;
  static final int FAILURES = 6;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create(ManualTime.config());
    time = ManualTime.get(testKit.system());
  }

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @Test
  void samePathAndSeedGiveTheSameDelays_otherPathOrSeedDoNot() {
    Map<String, List<Duration>> delays = new ConcurrentHashMap<>();
    BackoffPolicy policy = BackoffPolicy.exponential(Duration.ofMillis(10), Duration.ofMillis(200))
        .withResetAfter(Duration.ofDays(1))
        .withLoggingEnabled(false)
        .withRandomSeed(20261129L);

    runFailures(policy, delays, "first", "seeded-a", "seeded-b");
    runFailures(policy, delays, "again", "seeded-a");
    runFailures(policy.withRandomSeed(1L), delays, "otherSeed", "seeded-a");

    assertEquals(FAILURES, delays.get("first/seeded-a").size());
    assertEquals(delays.get("first/seeded-a"), delays.get("again/seeded-a"), "same seed, same path");
    assertNotEquals(delays.get("first/seeded-a"), delays.get("first/seeded-b"), "same seed, other path");
    assertNotEquals(delays.get("first/seeded-a"), delays.get("otherSeed/seeded-a"), "other seed, same path");
  }

  /** Spawns the named actors, makes each fail FAILURES times in a row, records their delays, stops them. */
  private static void runFailures(BackoffPolicy policy, Map<String, List<Duration>> delays, String run, String... names) {
    TestProbe<String> failed = testKit.createTestProbe();
    List<ActorRef<String>> actors = new ArrayList<>();
    for (String name : names) {
      List<Duration> mine = new CopyOnWriteArrayList<>();
      delays.put(run + "/" + name, mine);
      BackoffPolicy own = policy.withListener(e -> {
        if (e instanceof BackoffEvent.RestartScheduled r) {
          mine.add(r.delay());
          failed.ref().tell(name);
        }
      });
      ActorRef<String> actor = testKit.spawn(BackoffSupervisor.wrap(
          Behaviors.receiveMessage((String m) -> {
            throw new IllegalStateException("fail " + m);
          }), own), name);
      for (int i = 0; i < FAILURES; i++) {
        actor.tell("m" + i); // the first fails, the rest wait in the stash and fail one per restart
      }
      actors.add(actor);
    }
    for (int i = 0; i < FAILURES; i++) {
      for (int n = 0; n < names.length; n++) {
        failed.receiveMessage(); // every actor has scheduled its restart on the manual clock
      }
      time.timePasses(Duration.ofMillis(200));
    }
    for (ActorRef<String> actor : actors) {
      testKit.stop(actor);
    }
  }
}
