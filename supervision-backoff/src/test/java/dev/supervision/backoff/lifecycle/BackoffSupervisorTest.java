package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import dev.supervision.backoff.testsupport.WatchingParent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.internal.PoisonPillInterceptor;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When the supervisor restarts and when it stops, under ManualTime: after each delay, after a failed
 * setup or signal, after a reset, at the restart limit, on a permanent failure, with a Retry-After
 * hint, and with nested supervisors. Each timing test advances time to one millisecond before a
 * deadline, waits in real time to prove nothing happened, then crosses the deadline.
 */
final class BackoffSupervisorTest {

  // created per class run (not in a static initializer), so that a tool that runs the class again
  // in
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration QUIET = Duration.ofMillis(150);

  static BackoffPolicy unjittered() {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1));
  }

  /** Advances to 1 ms before {@code delay}, proves silence, then crosses it and expects a start. */
  static void expectRestartAfter(TestProbe<String> probe, Duration delay, String startMessage) {
    kit.time().timePasses(delay.minusMillis(1));
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage(startMessage);
  }

  @Test
  void restartsExactlyAfterEachUnjitteredDelay() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), unjittered()));
    probe.expectMessage("started");
    for (long ms : new long[] {100, 200, 400, 800, 1000, 1000}) {
      actor.tell("fail");
      probe.expectMessage("preRestart");
      expectRestartAfter(probe, Duration.ofMillis(ms), "started");
    }
    actor.tell("hello");
    probe.expectMessage("got:hello");
  }

  @Test
  void restartsAFailedSetupWithBackoff() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger failStarts = new AtomicInteger(2);
    kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref(), failStarts), unjittered()));
    probe.expectMessage("setup-failed"); // the first start
    kit.time().timePasses(Duration.ofMillis(99));
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage("setup-failed"); // restart 1 fails too: next delay is 200 ms
    kit.time().timePasses(Duration.ofMillis(199));
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage("started");
  }

  @Test
  void restartsAfterAFailureInSignalHandling() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              ctx.watch(watched);
              return Behaviors.receive(String.class)
                  .onSignal(
                      Terminated.class,
                      t -> {
                        throw new TestChild.Boom("signal");
                      })
                  .build();
            });
    kit.spawn(BackoffSupervisor.wrap(child, unjittered()));
    probe.expectMessage("started");
    kit.testKit().stop(watched);
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
  }

  @Test
  void resetsTheCountAfterRunningResetAfterWithoutFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy = unjittered().withResetAfter(Duration.ofMillis(500));
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(200), "started");
    // runs 499 ms: not enough, the next delay is still the third one
    kit.time().timePasses(Duration.ofMillis(499));
    actor.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(400), "started");
    // runs 500 ms: the count resets, the next delay is the first one again
    kit.time().timePasses(Duration.ofMillis(500));
    actor.tell("ping");
    probe.expectMessage("got:ping");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
  }

  /**
   * A reset tick that has already fired but waits in the mailbox behind a failure is stale when
   * its turn comes: the failure has started a new backoff, which the old tick must not reset. The
   * actor is held on a latch while the clock fires the tick, so the mailbox holds the failure
   * first and the tick second.
   */
  @Test
  void aResetTickQueuedBehindAFailureDoesNotResetTheNewBackoff() throws Exception {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    CountDownLatch release = new CountDownLatch(1);
    Behavior<String> child =
        Behaviors.receiveMessage(
            m -> {
              if (m.equals("block")) {
                probe.ref().tell("blocking");
                // bounded, so that a broken test cannot hold a dispatcher thread forever
                release.await(10, TimeUnit.SECONDS);
                return Behaviors.same();
              }
              throw new TestChild.Boom(m);
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withResetAfter(Duration.ofSeconds(1))
            .withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class); // the reset is due 1 s from now
    actor.tell("block");
    try {
      probe.expectMessage("blocking");
      actor.tell("fail"); // queued behind "block"
      kit.time().timePasses(Duration.ofSeconds(1)); // the reset tick fires, queued behind "fail"
    } finally {
      release.countDown();
    }
    BackoffEvent.RestartScheduled second =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(2, second.attempt());
    assertEquals(Duration.ofMillis(200), second.delay());
    events.expectNoMessage(Duration.ofMillis(300)); // no BackoffReset in the middle of the backoff
    kit.time().timePasses(Duration.ofMillis(200));
    assertEquals(
        new BackoffEvent.Restarted(actor, 2),
        events.expectMessageClass(BackoffEvent.Restarted.class));
    kit.testKit().stop(actor);
  }

  @Test
  void stopsOnTheFailureAfterMaxRestartsAndTheParentSeesIt() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<WatchingParent.Ended> parentProbe = kit.createTestProbe();
    TestProbe<ActorRef<String>> spawned = kit.createTestProbe();
    BackoffPolicy policy = unjittered().withMaxRestarts(2);
    kit.spawn(
        WatchingParent.reporting(
            BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy),
            "child",
            spawned.ref(),
            parentProbe.ref()));
    ActorRef<String> child = spawned.receiveMessage();
    probe.expectMessage("started");
    child.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
    child.tell("fail");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(200), "started");
    child.tell("fail"); // the failure after 2 restarts
    probe.expectMessage("postStop");
    WatchingParent.Ended terminated = parentProbe.receiveMessage();
    assertTrue(terminated.failed(), "parent sees ChildFailed but got " + terminated);
    assertEquals(child, terminated.child());
    assertTrue(terminated.cause() instanceof TestChild.Boom);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
  }

  /**
   * A restarted child that stops at once (its setup returns {@code stopped}) stops the actor
   * normally: its parent, which watched it from the start, sees a plain {@code Terminated}.
   */
  @Test
  void aRestartedChildThatStopsAtOnceStopsTheActorWithoutFailing() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              if (starts.incrementAndGet() > 1) {
                return Behaviors.stopped();
              }
              return Behaviors.receiveMessage(
                  m -> {
                    throw new TestChild.Boom(m);
                  });
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    Behavior<String> parent =
        WatchingParent.of(
            BackoffSupervisor.wrap(child, policy), "stops-at-restart", parentSaw.ref());
    ActorRef<String> parentRef = kit.spawn(parent);
    parentRef.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    parentSaw.expectMessage("terminated");
    kit.testKit().stop(parentRef);
  }

  @Test
  void maxRestartsZeroStopsOnTheFirstFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(TestChild.create(probe.ref()), unjittered().withMaxRestarts(0)));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
  }

  @Test
  void stopsAtOnceOnAPermanentFailure() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy = unjittered().withStopOn(IllegalArgumentException.class);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    actor.tell("fail"); // transient: restarted
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
    actor.tell("illegal"); // permanent: no PreRestart, no restart
    probe.expectMessage("postStop");
    probe.expectTerminated(actor);
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
  }

  @Test
  void stopsOnAPermanentFailureFoundInTheCauseChain() {
    BackoffPolicy policy = unjittered().withStopOn(IllegalArgumentException.class);
    assertTrue(policy.isPermanent(new RuntimeException(new IllegalArgumentException("inner"))));
    assertTrue(policy.isPermanent(new NumberFormatException("subclass")));
    assertTrue(!policy.isPermanent(new IllegalStateException("other")));
  }

  /**
   * The actor-level side of the rule above: a failure whose cause is permanent stops the actor at
   * once (no PreRestart, no backoff, GaveUp with reason PERMANENT_FAILURE and the wrapper as cause),
   * while the same wrapper around a transient cause is restarted.
   */
  @Test
  void aWrappedFailureWhoseCauseIsPermanentStopsTheActorAtOnce() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "wrapped-transient",
                      () -> {
                        throw new IllegalStateException("wrapper", new TestChild.Boom("transient"));
                      })
                  .onMessageEquals(
                      "wrapped-permanent",
                      () -> {
                        throw new IllegalStateException(
                            "wrapper", new IllegalArgumentException("permanent"));
                      })
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        probe.ref().tell("preRestart");
                        return Behaviors.same();
                      })
                  .onSignal(
                      PostStop.class,
                      s -> {
                        probe.ref().tell("postStop");
                        return Behaviors.same();
                      })
                  .build();
            });
    BackoffPolicy policy =
        unjittered().withStopOn(IllegalArgumentException.class).withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    probe.expectMessage("started");
    actor.tell("wrapped-transient"); // control: the wrapper alone is not permanent
    probe.expectMessage("preRestart");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
    events.expectMessageClass(BackoffEvent.Restarted.class);
    actor.tell("wrapped-permanent");
    probe.expectMessage("postStop"); // not preRestart
    probe.expectTerminated(actor);
    BackoffEvent.GaveUp gaveUp = events.expectMessageClass(BackoffEvent.GaveUp.class);
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertEquals(1, gaveUp.attempt());
    assertEquals("wrapper", gaveUp.cause().getMessage());
    assertEquals(IllegalArgumentException.class, gaveUp.cause().getCause().getClass());
    kit.time().timePasses(Duration.ofSeconds(2));
    probe.expectNoMessage(QUIET);
  }

  @Test
  void waitsAtLeastTheRetryAfterHint() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), unjittered()));
    probe.expectMessage("started");
    actor.tell("retry-after:PT3S"); // above the 1 s cap: the hint wins
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofSeconds(3), "started");
    actor.tell("retry-after:PT0.05S"); // below the policy's delay (200 ms): the policy wins
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(200), "started");
  }

  @Test
  void limitsTheRetryAfterHintToMaxRetryAfter() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy = unjittered().withMaxRetryAfter(Duration.ofSeconds(2));
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    actor.tell("retry-after:PT10H");
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofSeconds(2), "started");
  }

  @Test
  void stoppingDuringTheBackoffStopsCleanly() {
    TestProbe<String> probe = kit.createTestProbe();
    List<BackoffEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    BackoffPolicy policy = unjittered().withListener(events::add);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    probe.expectMessage("started");
    actor.tell("fail");
    probe.expectMessage("preRestart");
    kit.testKit().stop(actor);
    kit.time().timePasses(Duration.ofSeconds(5));
    probe.expectNoMessage(
        QUIET); // no restart, and the failed behavior got PreRestart, not PostStop
    assertTrue(
        events.get(events.size() - 1) instanceof BackoffEvent.StoppedDuringBackoff,
        events.toString());
  }

  /**
   * Cluster Sharding and Singleton stop an actor with Pekko's internal {@code PoisonPill} signal and
   * an interceptor outside the supervisor that stops the actor when the signal is unhandled. During
   * a backoff the supervisor leaves it unhandled (it does not stash it), so the actor stops at once:
   * the stashed message is dropped, and the restart never comes.
   */
  @Test
  @SuppressWarnings("unchecked")
  void aPoisonPillDuringTheBackoffStopsTheActorAtOnce() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    Behavior<String> sharded =
        Behaviors.intercept(
            PoisonPillInterceptor::new,
            BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy));
    ActorRef<String> actor = kit.spawn(sharded);
    probe.expectMessage("started");
    actor.tell("fail");
    actor.tell("stashed");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    ((ActorRef<Object>) (ActorRef<?>) actor).tell(PoisonPill.instance());
    assertEquals(
        new BackoffEvent.StoppedDuringBackoff(actor, 1, 1),
        events.expectMessageClass(BackoffEvent.StoppedDuringBackoff.class));
    probe.expectTerminated(actor);
  }

  /** The stop by a {@code PoisonPill} during a backoff is a plain stop: the parent sees no failure. */
  @Test
  @SuppressWarnings("unchecked")
  void aPoisonPillDuringTheBackoffStopsTheActorWithoutFailingIt() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    TestProbe<ActorRef<String>> self = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy = unjittered().withListener(events.ref()::tell);
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              self.ref().tell(ctx.getSelf());
              return TestChild.create(probe.ref());
            });
    ActorRef<String> parent =
        kit.spawn(
            WatchingParent.of(
                Behaviors.intercept(
                    PoisonPillInterceptor::new, BackoffSupervisor.wrap(child, policy)),
                "poisoned-during-backoff",
                parentSaw.ref()));
    ActorRef<String> actor = self.receiveMessage();
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    ((ActorRef<Object>) (ActorRef<?>) actor).tell(PoisonPill.instance());
    events.expectMessageClass(BackoffEvent.StoppedDuringBackoff.class);
    parentSaw.expectMessage("terminated");
    kit.testKit().stop(parent);
  }

  @Test
  void nestedSupervisorsEachKeepTheirOwnSchedule() {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy outer =
        BackoffPolicy.exponential(Duration.ofSeconds(5), Duration.ofSeconds(5))
            .withJitter(Jitter.none());
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                BackoffSupervisor.wrap(TestChild.create(probe.ref()), unjittered()), outer));
    probe.expectMessage("started");
    actor.tell("fail"); // handled by the inner supervisor: 100 ms
    probe.expectMessage("preRestart");
    expectRestartAfter(probe, Duration.ofMillis(100), "started");
    actor.tell("ping");
    probe.expectMessage("got:ping");
  }

  @Test
  void anInnerSupervisorThatGivesUpIsRestartedByTheOuterOne() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger failStarts = new AtomicInteger(0);
    BackoffPolicy outer =
        BackoffPolicy.exponential(Duration.ofSeconds(5), Duration.ofSeconds(5))
            .withJitter(Jitter.none());
    BackoffPolicy inner = unjittered().withMaxRestarts(1);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                BackoffSupervisor.wrap(TestChild.create(probe.ref(), failStarts), inner), outer));
    probe.expectMessage("started");
    actor.tell("fail"); // the inner supervisor restarts after 100 ms ...
    probe.expectMessage("preRestart");
    failStarts.set(1);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("setup-failed"); // ... where it has used its one restart and gives up ...
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofSeconds(5)); // ... and the outer one restarts the whole stack
    probe.expectMessage("started");
    actor.tell("ping");
    probe.expectMessage("got:ping");
  }

  /**
   * A supervisor that gave up while its child was failing to start has no child. If an outer
   * supervisor resumes the actor all the same, its messages are unhandled (published as {@code
   * UnhandledMessage}), never stashed for a restart that will not come.
   */
  @Test
  void afterGivingUpWithoutAChildUnderAnOuterResumeMessagesAreUnhandled() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<UnhandledMessage> unhandled = unhandledMessages();
    ActorRef<String> actor = gaveUpWithoutAChildUnderAnOuterResume(ctx -> {}, events);
    actor.tell("after");
    assertEquals("after", unhandled.expectMessageClass(UnhandledMessage.class).message());
    kit.testKit().stop(actor);
  }

  /**
   * A signal that reaches a supervisor that gave up without a child, under an outer supervisor that
   * resumes (here the {@code Terminated} of an actor its child watched), is ignored: there is no
   * behavior to give it to, and the actor goes on (its next message is unhandled, as above).
   */
  @Test
  void afterGivingUpWithoutAChildUnderAnOuterResumeASignalIsIgnored() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<UnhandledMessage> unhandled = unhandledMessages();
    ActorRef<String> watched = kit.spawn(Behaviors.receiveMessage(m -> Behaviors.stopped()));
    ActorRef<String> actor =
        gaveUpWithoutAChildUnderAnOuterResume(ctx -> ctx.watch(watched), events);
    watched.tell("stop");
    kit.createTestProbe().expectTerminated(watched);
    // Pekko queues the Terminated as a message when it handles the death notification, which it
    // does before "after" (a system message goes first), so the Terminated comes after "after" ...
    actor.tell("after");
    assertEquals("after", unhandled.expectMessageClass(UnhandledMessage.class).message());
    actor.tell("again"); // ... and before "again": the actor went on after it
    assertEquals("again", unhandled.expectMessageClass(UnhandledMessage.class).message());
    kit.testKit().stop(actor);
  }

  private static TestProbe<UnhandledMessage> unhandledMessages() {
    TestProbe<UnhandledMessage> unhandled = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(unhandled.ref()), UnhandledMessage.class);
    return unhandled;
  }

  /**
   * An actor under an outer resume whose child fails on its first message, then in the setup of its
   * restart, at the restart limit: its supervisor gives up without a child. {@code firstSetup} runs
   * in the child's first setup. The outer supervisor resumes only that failure ({@code Boom}): any
   * other failure after it (a signal handled by returning no behavior, say) stops the actor, and its
   * next message is not unhandled but dead.
   */
  private static ActorRef<String> gaveUpWithoutAChildUnderAnOuterResume(
      Consumer<ActorContext<String>> firstSetup, TestProbe<BackoffEvent> events) {
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              if (starts.incrementAndGet() > 1) {
                throw new TestChild.Boom("setup failed");
              }
              firstSetup.accept(ctx);
              return Behaviors.receiveMessage(
                  m -> {
                    throw new TestChild.Boom(m);
                  });
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withMaxRestarts(1)
            .withListener(events.ref()::tell);
    ActorRef<String> actor =
        kit.spawn(
            Behaviors.supervise(BackoffSupervisor.wrap(child, policy))
                .onFailure(TestChild.Boom.class, SupervisorStrategy.resume()));
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100)); // the restart fails in setup: gives up
    assertEquals(
        BackoffEvent.Reason.MAX_RESTARTS_REACHED,
        events.expectMessageClass(BackoffEvent.GaveUp.class).reason());
    return actor;
  }

  @Test
  void rejectsAnAbstractBehaviorInstance() {
    Behavior<String> instance =
        Behaviors.setup(
            ctx ->
                new AbstractBehavior<String>(ctx) {
                  @Override
                  public Receive<String> createReceive() {
                    return newReceiveBuilder().build();
                  }
                });
    // a setup is fine; the instance itself is not
    BackoffSupervisor.wrap(instance, unjittered());
    class Direct extends AbstractBehavior<String> {
      Direct(ActorContext<String> ctx) {
        super(ctx);
      }

      @Override
      public Receive<String> createReceive() {
        return newReceiveBuilder().build();
      }
    }
    List<Behavior<String>> direct = new ArrayList<>();
    kit.spawn(
        Behaviors.<String>setup(
            ctx -> {
              direct.add(new Direct(ctx));
              return Behaviors.empty();
            }));
    TestProbe<String> waitForSetup = kit.createTestProbe();
    waitForSetup.awaitAssert(
        () -> {
          assertEquals(1, direct.size());
          return null;
        });
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BackoffSupervisor.wrap(direct.get(0), unjittered()));
    assertTrue(
        e.getMessage().startsWith("child must not be an AbstractBehavior instance"),
        e.getMessage());
  }

  @Test
  void rejectsNullArguments() {
    NullPointerException child =
        assertThrows(NullPointerException.class, () -> BackoffSupervisor.wrap(null, unjittered()));
    assertEquals("child must not be null", child.getMessage());
    NullPointerException policy =
        assertThrows(
            NullPointerException.class, () -> BackoffSupervisor.wrap(Behaviors.empty(), null));
    assertEquals("policy must not be null", policy.getMessage());
  }
}
