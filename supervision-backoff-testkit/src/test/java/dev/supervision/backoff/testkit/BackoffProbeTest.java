package dev.supervision.backoff.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each expectation of BackoffProbe: what it returns, and what its failure says. */
final class BackoffProbeTest {

  @RegisterExtension
  static final BackoffTestKit kit =
      BackoffTestKit.create(
          ConfigFactory.parseString("pekko.actor.testkit.typed.single-expect-default = 3s"));

  private static final BackoffPolicy POLICY =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withJitter(Jitter.none())
          .withResetAfter(Duration.ofSeconds(10))
          .withStopOn(Child.Permanent.class);

  private final TestProbe<String> echo = kit.createTestProbe();

  private ActorRef<String> spawn(BackoffPolicy policy, String name) {
    return kit.spawn(BackoffSupervisor.wrap(Child.create(echo.ref()), policy), name);
  }

  @Test
  void expectRestartScheduled_returnsTheAttemptTheDelayAndTheCause() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "scheduled");
    actor.tell("fail");
    BackoffEvent.RestartScheduled event = probe.expectRestartScheduled(actor);
    assertEquals(actor, event.actor());
    assertEquals(1, event.attempt());
    assertEquals(Duration.ofMillis(100), event.delay());
    assertInstanceOf(Child.Boom.class, event.cause());
  }

  @Test
  void expectRestarted_thenExpectReset_afterResetAfter() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "reset");
    actor.tell("fail");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    assertEquals(1, probe.expectRestarted().attempt());
    kit.time().timePasses(Duration.ofSeconds(10));
    BackoffEvent.BackoffReset reset = probe.expectReset(actor);
    assertEquals(1, reset.attempt());
  }

  @Test
  void expectRestartScheduledAfterStop_takesARestartAfterAStopAndAllowsAnAdvance() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        spawn(POLICY.withRestartOnStop(true).withListener(probe.listener()), "after-stop");
    actor.tell("quit");
    assertTrue(probe.expectRestartScheduledAfterStop(actor).afterStop());
    probe.advanceToRestart(kit.time());
    probe.expectRestarted(actor);
    actor.tell("fail");
    AssertionError e = assertThrows(AssertionError.class, probe::expectRestartScheduledAfterStop);
    assertTrue(e.getMessage().contains("expected a restart after a stop"), e.getMessage());
  }

  @Test
  void expectGaveUpWithAReason_checksTheReason() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "reason");
    actor.tell("fatal");
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> probe.expectGaveUp(BackoffEvent.Reason.INNER_STOP));
    assertTrue(e.getMessage().contains("with reason INNER_STOP"), e.getMessage());
    ActorRef<String> other = spawn(POLICY.withListener(probe.listener()), "reason-2");
    other.tell("fatal");
    assertEquals(other, probe.expectGaveUp(BackoffEvent.Reason.PERMANENT_FAILURE).actor());
  }

  @Test
  void expectGaveUp_onAPermanentFailure() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "permanent");
    actor.tell("fatal");
    BackoffEvent.GaveUp gaveUp = probe.expectGaveUp(actor);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
  }

  @Test
  void expectGaveUp_afterMaxRestarts() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withMaxRestarts(1).withListener(probe.listener()), "max");
    actor.tell("fail");
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    actor.tell("fail");
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, probe.expectGaveUp().reason());
  }

  @Test
  void permitEvents_ofABudgetThatLetsOneRestartThroughPerSecond() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        POLICY
            .withBudget(RestartBudget.of("probe-test", 1, Duration.ofSeconds(1)))
            .withListener(probe.listener());
    ActorRef<String> first = spawn(policy, "budget-first");
    ActorRef<String> second = spawn(policy, "budget-second");
    first.tell("fail");
    probe.expectRestartScheduled(first);
    second.tell("fail");
    probe.expectRestartScheduled(second);
    kit.time().timePasses(Duration.ofMillis(100)); // both delays are over: both ask for a permit

    assertEquals("probe-test", probe.expectWaitingForPermit(first).budget());
    probe.expectWaitingForPermit(second);
    // one permit: exactly one of them restarts now, the other after the period
    BackoffEvent.PermitGranted granted = probe.expectPermitGranted();
    ActorRef<?> waiting = granted.actor().equals(first) ? second : first;
    probe.expectRestarted(granted.actor());
    probe.expectNoEvent(waiting, Duration.ofMillis(200));
    kit.time().timePasses(Duration.ofSeconds(1));
    probe.expectPermitGranted(waiting);
    probe.expectRestarted(waiting);
  }

  @Test
  void anActorsVariant_keepsTheEventsOfOtherActorsForLater() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy = POLICY.withListener(probe.listener());
    ActorRef<String> a = spawn(policy, "shared-a");
    ActorRef<String> b = spawn(policy, "shared-b");
    a.tell("fail");
    b.tell("fail");
    assertEquals(b, probe.expectRestartScheduled(b).actor());
    assertEquals(a, probe.expectRestartScheduled(a).actor());
    probe.expectNoEvent(Duration.ofMillis(100));
  }

  @Test
  void expectRestartScheduled_thatTimesOut_namesTheActorAndWhatItSawInstead() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy = POLICY.withListener(probe.listener());
    ActorRef<String> quiet = spawn(policy, "timeout-quiet");
    // a second listener, called after the probe's: once it has heard the event, so has the probe
    TestProbe<BackoffEvent> heard = kit.createTestProbe();
    ActorRef<String> noisy = spawn(policy.withListener(heard.ref()::tell), "timeout-noisy");
    noisy.tell("fail");
    heard.expectMessageClass(BackoffEvent.RestartScheduled.class, Duration.ofSeconds(10));
    AssertionError e =
        assertThrows(AssertionError.class, () -> probe.expectRestartScheduled(quiet));
    String m = e.getMessage();
    assertTrue(
        m.startsWith("expected RestartScheduled of [" + quiet.path() + "] within 3000 ms"), m);
    assertTrue(m.contains("no event of [" + quiet.path() + "] arrived"), m);
    assertTrue(m.contains("events of other actors meanwhile: [RestartScheduled[actor=" + noisy), m);
  }

  @Test
  void expectRestartScheduled_thatTimesOut_listsTheLastEventsItTook() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "timeout-history");
    actor.tell("fail");
    probe.expectRestartScheduled();
    AssertionError e = assertThrows(AssertionError.class, probe::expectRestartScheduled);
    String m = e.getMessage();
    assertTrue(
        m.startsWith("expected RestartScheduled of any actor within 3000 ms, but no event"), m);
    assertTrue(
        m.contains("the last events taken of any actor: [RestartScheduled[actor=" + actor), m);
  }

  @Test
  void anExpectationOfTheWrongEvent_failsNamingTheEventThatCame() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "wrong");
    actor.tell("fail");
    AssertionError e = assertThrows(AssertionError.class, () -> probe.expectRestarted(actor));
    assertTrue(
        e.getMessage().startsWith("expected Restarted of [" + actor.path() + "]"), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("but the next event of [" + actor.path() + "] was RestartScheduled["),
        e.getMessage());
  }

  @Test
  void expectNoEvent_failsOnAnEvent_andPassesOnSilence() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor = spawn(POLICY.withListener(probe.listener()), "silence");
    probe.expectNoEvent(Duration.ofMillis(100));
    actor.tell("fail");
    AssertionError e =
        assertThrows(AssertionError.class, () -> probe.expectNoEvent(actor, Duration.ofSeconds(1)));
    assertTrue(
        e.getMessage()
            .startsWith(
                "expected no event of ["
                    + actor.path()
                    + "] for 1000 ms, but got RestartScheduled["),
        e.getMessage());
  }

  @Test
  void subscribeToEventStream_seesActorsWhosePolicyPublishes_andNoOthers() {
    BackoffProbe probe = kit.createProbe().subscribeToEventStream();
    ActorRef<String> silent = spawn(POLICY, "stream-silent");
    ActorRef<String> publishing =
        spawn(POLICY.withEventStreamPublishing(true), "stream-publishing");
    silent.tell("fail");
    publishing.tell("fail");
    assertEquals(publishing, probe.expectRestartScheduled().actor());
    probe.advanceToRestart(kit.time());
    probe.expectRestarted(publishing);
    probe.expectNoEvent(Duration.ofMillis(100));
  }
}
