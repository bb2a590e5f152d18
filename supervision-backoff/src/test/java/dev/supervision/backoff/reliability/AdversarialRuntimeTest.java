package dev.supervision.backoff.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.RetryAfter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Receives;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.AllDeadLetters;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile children and hostile failures on real actors (ManualTime): a setup that never succeeds,
 * PostStop handlers and stop callbacks that throw, fatal throwables, hints at the extremes, a stash
 * that overflows, a broken stop rule, and budget queries for names nobody uses.
 */
final class AdversarialRuntimeTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration QUIET = Duration.ofMillis(200);

  static BackoffPolicy unjittered(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1))
        .withListener(events.ref()::tell);
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneak(Throwable t) throws E {
    throw (E) t;
  }

  /** A child that throws every throwable it is sent. */
  static Behavior<Throwable> thrower(TestProbe<String> probe) {
    return Behaviors.setup(
        ctx -> {
          probe.ref().tell("started");
          return Behaviors.receiveMessage(
              t -> {
                throw AdversarialRuntimeTest.<RuntimeException>sneak(t);
              });
        });
  }

  // ------------------------------------------------------------ children that never work

  @Test
  void aSetupThatThrowsForeverBacksOffEveryTimeUpToTheCap() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(10), Duration.ofMillis(40))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref(), new AtomicInteger(Integer.MAX_VALUE)), policy));
    long[] expected = {10, 20, 40, 40, 40, 40, 40, 40};
    for (int attempt = 1; attempt <= expected.length; attempt++) {
      probe.expectMessage("setup-failed");
      BackoffEvent.RestartScheduled scheduled =
          events.expectMessageClass(BackoffEvent.RestartScheduled.class);
      assertEquals(attempt, scheduled.attempt());
      assertEquals(Duration.ofMillis(expected[attempt - 1]), scheduled.delay());
      kit.time().timePasses(scheduled.delay());
    }
    probe.expectMessage("setup-failed");
    kit.testKit().stop(actor);
  }

  // ------------------------------------------------------------ PostStop and stop callbacks

  @Test
  void aPostStopThatThrowsWhenTheChildStopsDoesNotRestartIt() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals("stop", Behaviors::stopped)
                  .onSignal(
                      PostStop.class,
                      s -> {
                        probe.ref().tell("postStop");
                        throw new TestChild.Boom("in PostStop");
                      })
                  .build();
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, unjittered(events)));
    probe.expectMessage("started");
    actor.tell("stop");
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
    events.expectNoMessage(Duration.ZERO);
  }

  @Test
  void aPostStopThatThrowsAfterGivingUpStillStopsTheActorOnce() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "fail",
                      () -> {
                        throw new TestChild.Boom("fail");
                      })
                  .onSignal(
                      PostStop.class,
                      s -> {
                        probe.ref().tell("postStop");
                        throw new TestChild.Boom("in PostStop");
                      })
                  .build();
            });
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child, unjittered(events).withMaxRestarts(0)));
    probe.expectMessage("started");
    actor.tell("fail");
    BackoffEvent.GaveUp gaveUp = events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.MAX_RESTARTS_REACHED, gaveUp.reason());
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
  }

  @Test
  void aStopCallbackThatThrowsStopsTheActorWithoutARestart() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "stop",
                      () ->
                          Behaviors.stopped(
                              () -> {
                                probe.ref().tell("callback");
                                throw new TestChild.Boom("in the stop callback");
                              }))
                  .build();
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, unjittered(events)));
    probe.expectMessage("started");
    actor.tell("stop");
    probe.expectMessage("callback");
    probe.expectTerminated(actor);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
    events.expectNoMessage(Duration.ZERO);
  }

  // ------------------------------------------------------------ fatal throwables

  @Test
  void anInterruptedExceptionIsNotHandledAndTheActorStops() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<Throwable> actor =
        kit.spawn(BackoffSupervisor.wrap(thrower(probe), unjittered(events)));
    probe.expectMessage("started");
    actor.tell(new InterruptedException("fatal for supervisors, as in Pekko"));
    probe.expectTerminated(actor);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
    events.expectNoMessage(Duration.ZERO);
  }

  @Test
  void aStackOverflowErrorInSetupIsNotCaught() {
    StackOverflowError fatal = new StackOverflowError();
    BackoffPolicy policy = BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              throw fatal;
            });
    assertSame(
        fatal,
        assertThrows(
            StackOverflowError.class,
            () -> BehaviorTestKit.create(BackoffSupervisor.wrap(child, policy))));
  }

  /** A failure whose Retry-After hint throws {@code error}. */
  static final class HintThatThrows extends RuntimeException implements RetryAfter {
    private final Error error;

    HintThatThrows(Error error) {
      super("hint that throws", null, false, false);
      this.error = error;
    }

    @Override
    public Duration retryAfter() {
      throw error;
    }
  }

  /**
   * A fatal error thrown by a user's code that the supervisor otherwise survives (a final stop
   * predicate, a {@code PreRestart} handler, a {@code RetryAfter} hint, a listener) is not caught: it leaves
   * the supervisor as thrown, as Pekko lets fatal errors through. (A {@code BehaviorTestKit}, which
   * runs the actor on the test's thread: in an actor system a fatal error stops the system.)
   */
  @Test
  void aFatalErrorOfACallbackAPreRestartOrAHintIsNotCaught() {
    LinkageError fatal = new LinkageError("fatal");
    Behavior<String> failing =
        Receives.failing()
            .onMessageEquals(
                "hint",
                () -> {
                  throw new HintThatThrows(fatal);
                })
            .build();
    BackoffPolicy base = BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1));

    BehaviorTestKit<String> predicate =
        BehaviorTestKit.create(
            BackoffSupervisor.wrap(
                failing,
                base.withRestartOnStop(true)
                    .withFinalStopMessage(
                        m -> {
                          throw fatal;
                        })));
    assertSame(fatal, assertThrows(LinkageError.class, () -> predicate.run("fail")));

    Behavior<String> preRestartThrows =
        Receives.failing()
            .onSignal(
                PreRestart.class,
                s -> {
                  throw fatal;
                })
            .build();
    BehaviorTestKit<String> preRestart =
        BehaviorTestKit.create(BackoffSupervisor.wrap(preRestartThrows, base));
    assertSame(fatal, assertThrows(LinkageError.class, () -> preRestart.run("fail")));

    BehaviorTestKit<String> hint = BehaviorTestKit.create(BackoffSupervisor.wrap(failing, base));
    assertSame(fatal, assertThrows(LinkageError.class, () -> hint.run("hint")));

    BehaviorTestKit<String> listener =
        BehaviorTestKit.create(
            BackoffSupervisor.wrap(
                failing,
                base.withStopOn(TestChild.Boom.class) // gives up at once: GaveUp is emitted
                    .withListener(
                        event -> {
                          throw fatal;
                        })));
    assertSame(fatal, assertThrows(LinkageError.class, () -> listener.run("fail")));
  }

  // ------------------------------------------------------------ a broken stop rule

  @Test
  void aStopPredicateThatThrowsAnErrorStopsTheActorWithTheFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    AssertionError bug = new AssertionError("bug in the rule");
    BackoffPolicy policy =
        unjittered(events)
            .withStopOn(
                t -> {
                  throw bug;
                });
    ActorRef<Throwable> actor = kit.spawn(BackoffSupervisor.wrap(thrower(probe), policy));
    probe.expectMessage("started");
    IllegalStateException failure = new IllegalStateException("the failure");
    actor.tell(failure);
    BackoffEvent.GaveUp gaveUp = events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertSame(failure, gaveUp.cause());
    assertSame(bug, failure.getSuppressed()[0]);
    probe.expectTerminated(actor);
  }

  /** A failure whose getCause() has a bug. */
  static final class BrokenCause extends RuntimeException {
    BrokenCause() {
      super("broken getCause", null, false, false);
    }

    @Override
    public synchronized Throwable getCause() {
      throw new IllegalStateException("bug in getCause");
    }
  }

  @Test
  void aFailureWhoseGetCauseThrowsIsStillRestarted() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    // a restart list, so that classification walks the cause chain too
    BackoffPolicy policy = unjittered(events).withRestartOn(RuntimeException.class);
    ActorRef<Throwable> actor = kit.spawn(BackoffSupervisor.wrap(thrower(probe), policy));
    probe.expectMessage("started");
    BrokenCause failure = new BrokenCause();
    actor.tell(failure);
    BackoffEvent.RestartScheduled scheduled =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertSame(failure, scheduled.cause());
    kit.time().timePasses(scheduled.delay());
    probe.expectMessage("started");
    kit.testKit().stop(actor);
  }

  // ------------------------------------------------------------ RetryAfter at the extremes

  /** A failure with a hint and, optionally, a cause. */
  static final class Hinted extends RuntimeException implements RetryAfter {
    private final Duration hint;

    Hinted(Duration hint, Throwable cause) {
      super("hint " + hint, cause, false, false);
      this.hint = hint;
    }

    @Override
    public Duration retryAfter() {
      return hint;
    }
  }

  private static Duration delayFor(
      Throwable failure, BackoffPolicy policy, TestProbe<BackoffEvent> events) {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<Throwable> actor = kit.spawn(BackoffSupervisor.wrap(thrower(probe), policy));
    probe.expectMessage("started");
    actor.tell(failure);
    Duration delay = events.expectMessageClass(BackoffEvent.RestartScheduled.class).delay();
    kit.testKit().stop(actor);
    events.expectMessageClass(BackoffEvent.StoppedDuringBackoff.class);
    return delay;
  }

  @Test
  void retryAfterHintsAtTheExtremes() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy = unjittered(events).withMaxRetryAfter(Duration.ofSeconds(5));
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
    assertEquals(Duration.ofSeconds(5), delayFor(new Hinted(huge, null), policy, events));
    assertEquals(
        Duration.ofSeconds(5),
        delayFor(new Hinted(Duration.ofSeconds(5).plusNanos(1), null), policy, events));
    assertEquals(
        Duration.ofMillis(100),
        delayFor(new Hinted(Duration.ofSeconds(Long.MIN_VALUE), null), policy, events));
    assertEquals(Duration.ofMillis(100), delayFor(new Hinted(Duration.ZERO, null), policy, events));
    assertEquals(
        Duration.ofMillis(100), delayFor(new Hinted(Duration.ofNanos(1), null), policy, events));
    // unusable hints outside, a usable one inside: the first usable hint of the chain counts
    Throwable chain =
        new Hinted(
            null, new Hinted(Duration.ofSeconds(-1), new Hinted(Duration.ofSeconds(3), null)));
    assertEquals(Duration.ofSeconds(3), delayFor(chain, policy, events));
  }

  // ------------------------------------------------------------ the stash

  @Test
  void everyMessageOfAnOverflowingStashIsDeliveredOrADeadLetterExactlyOnce() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<AllDeadLetters> deadLetters = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(deadLetters.ref()), AllDeadLetters.class);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()), unjittered(events).withStashCapacity(3)));
    probe.expectMessage("started");
    actor.tell("fail");
    for (int i = 0; i < 10; i++) {
      actor.tell("m" + i);
    }
    probe.expectMessage("preRestart");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    Set<Object> dead = new HashSet<>();
    for (int i = 0; i < 7; i++) {
      dead.add(deadLetters.receiveMessage().message());
    }
    assertEquals(Set.of("m3", "m4", "m5", "m6", "m7", "m8", "m9"), dead);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:m0");
    probe.expectMessage("got:m1");
    probe.expectMessage("got:m2");
    probe.expectNoMessage(QUIET);
    deadLetters.expectNoMessage(Duration.ZERO);
    kit.testKit().stop(actor);
    Adapter.toClassic(kit.system())
        .getEventStream()
        .unsubscribe(Adapter.toClassic(deadLetters.ref()));
  }

  @Test
  void theStashOfAnActorWhoseRestartsKeepFailingUntilItGivesUpGoesToDeadLetters() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<AllDeadLetters> deadLetters = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(deadLetters.ref()), AllDeadLetters.class);
    AtomicInteger failStarts = new AtomicInteger(0);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref(), failStarts), unjittered(events).withMaxRestarts(2)));
    probe.expectMessage("started");
    failStarts.set(Integer.MAX_VALUE); // every restart fails in setup from now on
    actor.tell("fail");
    actor.tell("m0");
    actor.tell("m1");
    probe.expectMessage("preRestart");
    assertEquals(
        Duration.ofMillis(100),
        events.expectMessageClass(BackoffEvent.RestartScheduled.class).delay());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("setup-failed");
    assertEquals(
        Duration.ofMillis(200),
        events.expectMessageClass(BackoffEvent.RestartScheduled.class).delay());
    kit.time().timePasses(Duration.ofMillis(200));
    probe.expectMessage("setup-failed");
    assertEquals(
        BackoffEvent.Reason.MAX_RESTARTS_REACHED,
        events.expectMessageClass(BackoffEvent.GaveUp.class).reason());
    probe.expectTerminated(actor);
    Set<Object> dead = new HashSet<>();
    dead.add(deadLetters.receiveMessage().message());
    dead.add(deadLetters.receiveMessage().message());
    assertEquals(Set.of("m0", "m1"), dead);
    Adapter.toClassic(kit.system())
        .getEventStream()
        .unsubscribe(Adapter.toClassic(deadLetters.ref()));
  }

  @Test
  void theLargestStashCapacityKeepsEveryMessage() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                TestChild.create(probe.ref()),
                unjittered(events).withStashCapacity(Integer.MAX_VALUE)));
    probe.expectMessage("started");
    actor.tell("fail");
    for (int i = 0; i < 2000; i++) {
      actor.tell("m" + i);
    }
    probe.expectMessage("preRestart");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    for (int i = 0; i < 2000; i++) {
      probe.expectMessage("got:m" + i);
    }
    kit.testKit().stop(actor);
  }

  // ------------------------------------------------------------ budget entry points

  @Test
  void budgetQueriesForANameNobodyUsesAnswerNothingAndReleaseIsHarmless() throws Exception {
    RestartBudgets budgets = RestartBudgets.get(kit.system());
    budgets.release("never-used");
    assertFalse(budgets.names().contains("never-used"));
    assertEquals(
        Optional.empty(),
        budgets.status("never-used").toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertEquals(0, budgets.waiting("never-used").toCompletableFuture().get(5, TimeUnit.SECONDS));
    assertEquals(
        "budgetName must not be null",
        assertThrows(NullPointerException.class, () -> budgets.release(null)).getMessage());
    assertEquals(
        "budget must not be null",
        assertThrows(NullPointerException.class, () -> budgets.gate(null)).getMessage());
    assertInstanceOf(
        IllegalStateException.class,
        assertThrows(
            RuntimeException.class,
            () -> {
              budgets.gate(RestartBudget.of("audit-conflict", 1, Duration.ofSeconds(1)));
              budgets.gate(RestartBudget.of("audit-conflict", 1, Duration.ofSeconds(2)));
            }));
    budgets.release("audit-conflict");
  }
}
