package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
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

  /**
   * A seeded random sequence goes on after a reset (only the count and the schedule start again):
   * seed 42 at {@code /user/seeded-literal} draws u1 = 0.88061605..., u2 = 0.38099843..., the
   * values behind the literal delays of {@code EventsAndLoggingTest} (88,061,605 ns of a 100 ms
   * bound, 76,199,686 ns of a 200 ms bound). After a reset the bound is 100 ms again and the draw
   * is u2: 38,099,843 ns. Starting the sequence afresh would give 88,061,605 ns again.
   */
  @Test
  void aSeededSequenceContinuesAfterAResetWhileTheScheduleStartsAgain() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
            .withResetAfter(Duration.ofSeconds(1))
            .withRandomSeed(42)
            .withListener(events.ref()::tell);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy), "seeded-literal");
    probe.expectMessage("started");
    actor.tell("fail");
    BackoffEvent.RestartScheduled first =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(Duration.ofNanos(88_061_605L), first.delay());
    kit.time().timePasses(Duration.ofMillis(100));
    assertEquals(
        new BackoffEvent.Restarted(actor, 1),
        events.expectMessageClass(BackoffEvent.Restarted.class));
    kit.time().timePasses(Duration.ofSeconds(1));
    assertEquals(
        new BackoffEvent.BackoffReset(actor, 1),
        events.expectMessageClass(BackoffEvent.BackoffReset.class));
    actor.tell("fail");
    BackoffEvent.RestartScheduled afterReset =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(1, afterReset.attempt());
    assertEquals(Duration.ofNanos(38_099_843L), afterReset.delay());
    kit.testKit().stop(actor);
  }
}
