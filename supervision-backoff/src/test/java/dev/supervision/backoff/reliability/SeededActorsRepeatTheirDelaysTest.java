package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code withRandomSeed}, an actor at the same path gets the same delays every time it is
 * spawned; another path or another seed gets other delays.
 */
final class SeededActorsRepeatTheirDelaysTest {

  // one ManualTime system per class run, also when PIT runs the class again in the same JVM
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final int FAILURES = 6;

  @Test
  void samePathAndSeedGiveTheSameDelays_otherPathOrSeedDoNot() {
    Map<String, List<Duration>> delays = new ConcurrentHashMap<>();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(10), Duration.ofMillis(200))
            .withResetAfter(Duration.ofDays(1))
            .withLoggingEnabled(false)
            .withRandomSeed(20261129L);

    runFailures(policy, delays, "first", "seeded-a", "seeded-b");
    runFailures(policy, delays, "again", "seeded-a");
    runFailures(policy.withRandomSeed(1L), delays, "otherSeed", "seeded-a");

    assertEquals(FAILURES, delays.get("first/seeded-a").size());
    assertEquals(
        delays.get("first/seeded-a"), delays.get("again/seeded-a"), "same seed, same path");
    assertNotEquals(
        delays.get("first/seeded-a"), delays.get("first/seeded-b"), "same seed, other path");
    assertNotEquals(
        delays.get("first/seeded-a"), delays.get("otherSeed/seeded-a"), "other seed, same path");
  }

  /** Spawns the named actors, makes each fail FAILURES times in a row, records their delays, stops them. */
  private static void runFailures(
      BackoffPolicy policy, Map<String, List<Duration>> delays, String run, String... names) {
    BackoffProbe probe = kit.createProbe();
    List<ActorRef<String>> actors = new ArrayList<>();
    for (String name : names) {
      delays.put(run + "/" + name, new CopyOnWriteArrayList<>());
      ActorRef<String> actor =
          kit.spawn(
              BackoffSupervisor.wrap(
                  Behaviors.receiveMessage(
                      (String m) -> {
                        throw new IllegalStateException("fail " + m);
                      }),
                  policy.withListener(probe.listener())),
              name);
      for (int i = 0; i < FAILURES; i++) {
        actor.tell("m" + i); // the first fails, the rest wait in the stash and fail one per restart
      }
      actors.add(actor);
    }
    for (int i = 0; i < FAILURES; i++) {
      for (int n = 0; n < names.length; n++) {
        // every actor has scheduled its restart on the manual clock
        delays.get(run + "/" + names[n]).add(probe.expectRestartScheduled(actors.get(n)).delay());
      }
      kit.time().timePasses(Duration.ofMillis(200));
      if (i < FAILURES - 1) {
        for (ActorRef<String> actor : actors) {
          probe.expectRestarted(actor);
        }
      }
    }
    for (ActorRef<String> actor : actors) {
      kit.testKit().stop(actor);
    }
  }
}
