package dev.supervision.backoff.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffListener;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.testkit.ExplicitlyTriggeredScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** advanceToRestart lands the manual clock exactly on the restart and catches one that is early. */
final class AdvanceToRestartTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private final TestProbe<String> echo = kit.createTestProbe();

  private static long clock() {
    return ((ExplicitlyTriggeredScheduler) Adapter.toClassic(kit.system()).scheduler())
        .currentTimeMs();
  }

  private ActorRef<String> spawn(BackoffPolicy policy) {
    return kit.spawn(BackoffSupervisor.wrap(Child.create(echo.ref()), policy));
  }

  @Test
  void movesTheClockExactlyByTheDrawnDelay_withFullJitter() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(500), Duration.ofSeconds(5))
                .withRandomSeed(42)
                .withListener(probe.listener()));
    long before = clock();
    actor.tell("fail");
    BackoffEvent.RestartScheduled scheduled = probe.expectRestartScheduled();
    assertEquals(scheduled, probe.advanceToRestart(kit.time()));
    assertEquals(before + scheduled.delay().toMillis(), clock());
    probe.expectRestarted();
  }

  @Test
  void afterTheClockMovedPartWay_advancesTheRestOnly() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(300), Duration.ofSeconds(5))
                .withJitter(Jitter.none())
                .withListener(probe.listener()));
    long before = clock();
    actor.tell("fail");
    probe.expectRestartScheduled();
    kit.time().timePasses(Duration.ofMillis(100));
    probe.advanceToRestart(kit.time());
    assertEquals(before + 300, clock());
    probe.expectRestarted();
  }

  @Test
  void aRestartOneMillisecondEarlierThanAnnounced_fails() {
    BackoffProbe probe = kit.createProbe();
    BackoffListener announcesOneMsLater =
        event ->
            probe
                .listener()
                .onEvent(
                    event instanceof BackoffEvent.RestartScheduled r
                        ? new BackoffEvent.RestartScheduled(
                            r.actor(),
                            r.attempt(),
                            r.delay().plusMillis(1),
                            r.cause(),
                            r.afterStop())
                        : event);
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(5))
                .withJitter(Jitter.none())
                .withListener(announcesOneMsLater));
    actor.tell("fail");
    probe.expectRestartScheduled();
    // a window long enough for a loaded machine: it ends as soon as the early event arrives
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> probe.advanceToRestart(kit.time(), Duration.ofSeconds(3)));
    assertTrue(
        e.getMessage()
            .startsWith("[" + actor.path() + "] did not wait for its restart: Restarted["),
        e.getMessage());
    assertTrue(e.getMessage().contains("but the restart was due at"), e.getMessage());
  }

  @Test
  void aRestartOnTime_passesAnExtraWindow() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(200), Duration.ofSeconds(5))
                .withJitter(Jitter.none())
                .withListener(probe.listener()));
    long before = clock();
    actor.tell("fail");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time(), Duration.ofMillis(300));
    assertEquals(before + 200, clock());
    probe.expectRestarted(actor);
  }

  @Test
  void aNegativeWindow_isRejectedNamingIt() {
    BackoffProbe probe = kit.createProbe();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> probe.advanceToRestart(kit.time(), Duration.ofMillis(-1)));
    assertEquals("window must be >= 0 but was PT-0.001S", e.getMessage());
  }

  @Test
  void withoutAnExpectedRestart_refusesToMoveTheClock() {
    BackoffProbe probe = kit.createProbe();
    long before = clock();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> probe.advanceToRestart(kit.time()));
    assertTrue(
        e.getMessage().startsWith("no restart to advance to: call expectRestartScheduled() first"),
        e.getMessage());
    assertEquals(before, clock());
  }

  @Test
  void onceTheClockIsPastTheRestart_refusesAndSaysWhen() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(5))
                .withJitter(Jitter.none())
                .withListener(probe.listener()));
    actor.tell("fail");
    probe.expectRestartScheduled();
    kit.time().timePasses(Duration.ofMillis(100));
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> probe.advanceToRestart(kit.time()));
    assertTrue(
        e.getMessage().contains("already at or past the restart of [" + actor.path() + "]"),
        e.getMessage());
  }

  @Test
  void aKitWithoutManualTime_isRefused() {
    ActorTestKit realTime = ActorTestKit.create("RealTime");
    try {
      BackoffProbe probe = BackoffProbe.create(realTime);
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> probe.advanceToRestart(kit.time()));
      assertTrue(
          e.getMessage()
              .startsWith("advanceToRestart needs a test kit created with ManualTime.config()"),
          e.getMessage());
    } finally {
      realTime.shutdownTestKit();
    }
  }

  @Test
  void tenRestartsInARow() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(
            BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(30))
                .withRandomSeed(10)
                .withListener(probe.listener()));
    long start = System.nanoTime();
    for (int attempt = 1; attempt <= 10; attempt++) {
      actor.tell("fail");
      assertEquals(attempt, probe.expectRestartScheduled().attempt());
      probe.advanceToRestart(kit.time());
      probe.expectRestarted();
    }
    System.out.printf(
        "ten restarts with the kit: %d ms%n", (System.nanoTime() - start) / 1_000_000);
  }
}
