package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.internal.PoisonPill;
import org.apache.pekko.actor.typed.internal.PoisonPillInterceptor;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rules of the supervisor's engine, each checked right where it shows, so that a broken rule fails
 * at its first expectation instead of leaving the test waiting for a restart that never comes.
 */
final class SupervisorEngineRulesTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

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

  /**
   * Children that stop quickly do not bring the restart forward: their {@code Terminated} arrives
   * long before the delay has passed, and the restart still comes only when the delay has passed.
   */
  @Test
  void childrenThatStopBeforeTheDelayHasPassedDoNotBringTheRestartForward() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    Behavior<String> kid =
        Behaviors.receive(String.class)
            .onSignal(
                PostStop.class,
                s -> {
                  probe.ref().tell("kid-stopped");
                  return Behaviors.same();
                })
            .build();
    Behavior<String> parent =
        Behaviors.setup(
            ctx -> {
              int n = incarnation.incrementAndGet();
              ctx.spawn(kid, "kid-" + n);
              ctx.spawn(kid, "other-kid-" + n);
              probe.ref().tell("started-" + n);
              return Behaviors.receiveMessage(
                  m -> {
                    throw new TestChild.Boom(m);
                  });
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(parent, policy));
    probe.expectMessage("started-1");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    probe.expectMessage("kid-stopped");
    probe.expectMessage("kid-stopped");
    kit.time().timePasses(Duration.ofMillis(999));
    probe.expectNoMessage(Duration.ofMillis(200)); // both Terminated are in, the delay is not over
    events.expectNoMessage(Duration.ZERO);
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage("started-2");
    assertEquals(
        new BackoffEvent.Restarted(actor, 1),
        events.expectMessageClass(BackoffEvent.Restarted.class));
    kit.testKit().stop(actor);
  }

  /**
   * Only the first incarnation watches {@code watched}; its {@code Terminated} arrives during the
   * backoff and is delivered to the restarted behavior, which never watched it itself (so the
   * signal can only come from the stash).
   */
  private static Behavior<String> watchingOnce(
      ActorRef<String> watched, TestProbe<String> probe, AtomicInteger incarnation) {
    return Behaviors.setup(
        ctx -> {
          if (incarnation.incrementAndGet() == 1) {
            ctx.watch(watched);
          }
          probe.ref().tell("started");
          return Behaviors.receive(String.class)
              .onMessageEquals(
                  "fail",
                  () -> {
                    throw new TestChild.Boom("fail");
                  })
              .onSignal(
                  Terminated.class,
                  t -> {
                    probe.ref().tell("saw-terminated");
                    return Behaviors.same();
                  })
              .build();
        });
  }

  @Test
  void aSignalOfTheBackoffIsStashedAndDeliveredToTheRestartedBehavior() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(watchingOnce(watched, probe, new AtomicInteger()), policy));
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.testKit().stop(watched); // its Terminated reaches the actor during the backoff
    probe.expectNoMessage(Duration.ofMillis(200));
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("saw-terminated");
    kit.testKit().stop(actor);
  }

  @Test
  void aSignalThatDoesNotFitIntoTheStashIsPublishedAsDroppedAsTheSignalItself() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<Dropped> dropped = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(dropped.ref()), Dropped.class);
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withStashCapacity(0)
            .withListener(events.ref()::tell);
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(watchingOnce(watched, probe, new AtomicInteger()), policy));
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.testKit().stop(watched);
    Dropped lost = dropped.expectMessageClass(Dropped.class);
    assertEquals(watched, assertInstanceOf(Terminated.class, lost.message()).getRef());
    assertEquals(actor.path(), lost.recipient().path());
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectNoMessage(Duration.ofMillis(200)); // the restarted behavior never sees it
    kit.testKit().stop(actor);
  }

  /** A child may become a behavior that is not an {@code ExtensibleBehavior}, such as ignore. */
  @Test
  void aChildThatBecameIgnoreIgnoresEveryMessageAndNothingFails() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.receiveMessage(
            m -> {
              probe.ref().tell("got:" + m);
              return Behaviors.ignore();
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    actor.tell("first");
    probe.expectMessage("got:first");
    actor.tell("second");
    actor.tell("third");
    probe.expectNoMessage(Duration.ofMillis(200));
    events.expectNoMessage(Duration.ZERO);
    kit.testKit().stop(actor);
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

  /**
   * A timer that the failed incarnation starts in its {@code PreRestart} handler, after the
   * supervisor cancelled the timers of the failure, dies at the restart too: the new incarnation
   * never gets its message.
   */
  @Test
  void aTimerStartedInPreRestartDiesWithTheIncarnationAtTheRestart() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.withTimers(
            timers -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "fail",
                      () -> {
                        throw new TestChild.Boom("fail");
                      })
                  .onMessage(
                      String.class,
                      m -> {
                        probe.ref().tell("got:" + m);
                        return Behaviors.same();
                      })
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        timers.startSingleTimer("late", Duration.ofMillis(150));
                        return Behaviors.same();
                      })
                  .build();
            });
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    probe.expectMessage("started");
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    events.expectMessageClass(BackoffEvent.Restarted.class);
    kit.time().timePasses(Duration.ofMillis(100)); // the timer would have fired at 150 ms
    probe.expectNoMessage(Duration.ofMillis(200));
    kit.testKit().stop(actor);
  }

  /**
   * A stashed message that makes the restarted child stop stops the actor normally: its parent sees
   * a plain {@code Terminated}, not a {@code ChildFailed}.
   */
  @Test
  void aStashedMessageThatStopsTheRestartedChildStopsTheActorWithoutFailing() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> parentSaw = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withJitter(Jitter.none())
            .withListener(events.ref()::tell);
    Behavior<String> parent =
        Behaviors.setup(
            ctx -> {
              ActorRef<String> supervised =
                  ctx.spawn(BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy), "kid");
              ctx.watch(supervised);
              return Behaviors.receive(String.class)
                  .onMessage(
                      String.class,
                      m -> {
                        supervised.tell(m);
                        return Behaviors.same();
                      })
                  .onSignal(
                      Terminated.class,
                      t -> {
                        parentSaw
                            .ref()
                            .tell(t instanceof ChildFailed ? "child-failed" : "terminated");
                        return Behaviors.same();
                      })
                  .build();
            });
    ActorRef<String> parentRef = kit.spawn(parent);
    probe.expectMessage("started");
    parentRef.tell("fail");
    parentRef.tell("stop"); // stashed during the backoff
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("postStop");
    parentSaw.expectMessage("terminated");
    kit.testKit().stop(parentRef);
  }

  /** Re-wraps itself inside a {@code setup} on "rewrap" (a layer started elsewhere), fails on "fail". */
  private static Behavior<String> reWrapping(TestProbe<String> probe, BackoffPolicy policy) {
    return Behaviors.receiveMessage(
        m -> {
          if (m.equals("rewrap")) {
            probe.ref().tell("rewrapped");
            return Behaviors.setup(
                ctx -> BackoffSupervisor.wrap(reWrapping(probe, policy), policy));
          }
          throw new TestChild.Boom(m);
        });
  }

  /**
   * A re-wrap replayed from the stash is handed over like one handled at once: the new layer takes
   * over the restart count, so the next failure is attempt 2 with the second delay. A nested layer
   * would count afresh (attempt 1, 100 ms).
   */
  @Test
  void aReWrapReplayedFromTheStashCarriesTheRestartCountOn() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
            .withJitter(Jitter.none())
            .withResetAfter(Duration.ofHours(1))
            .withListener(events.ref()::tell);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(reWrapping(probe, policy), policy));
    actor.tell("fail");
    actor.tell("rewrap"); // stashed, replayed after the restart
    assertEquals(1, events.expectMessageClass(BackoffEvent.RestartScheduled.class).attempt());
    kit.time().timePasses(Duration.ofMillis(100));
    events.expectMessageClass(BackoffEvent.Restarted.class);
    probe.expectMessage("rewrapped");
    actor.tell("fail");
    BackoffEvent.RestartScheduled next =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertEquals(2, next.attempt());
    assertEquals(Duration.ofMillis(200), next.delay());
    kit.testKit().stop(actor);
  }

  /**
   * A supervisor that gave up while its child was failing to start has no child. If an outer
   * supervisor resumes the actor all the same, its messages are unhandled (published as {@code
   * UnhandledMessage}), never stashed for a restart that will not come.
   */
  @Test
  void afterGivingUpWithoutAChildUnderAnOuterResumeMessagesAreUnhandled() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<UnhandledMessage> unhandled = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(unhandled.ref()), UnhandledMessage.class);
    AtomicInteger starts = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              if (starts.incrementAndGet() > 1) {
                throw new TestChild.Boom("setup failed");
              }
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
                .onFailure(SupervisorStrategy.resume()));
    actor.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100)); // the restart fails in setup: gives up
    assertEquals(
        BackoffEvent.Reason.MAX_RESTARTS_REACHED,
        events.expectMessageClass(BackoffEvent.GaveUp.class).reason());
    actor.tell("after");
    assertEquals("after", unhandled.expectMessageClass(UnhandledMessage.class).message());
    kit.testKit().stop(actor);
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
        Behaviors.setup(
            ctx -> {
              ActorRef<String> supervised =
                  ctx.spawn(BackoffSupervisor.wrap(child, policy), "stops-at-restart");
              ctx.watch(supervised);
              return Behaviors.receive(String.class)
                  .onMessage(
                      String.class,
                      m -> {
                        supervised.tell(m);
                        return Behaviors.same();
                      })
                  .onSignal(
                      Terminated.class,
                      t -> {
                        parentSaw
                            .ref()
                            .tell(t instanceof ChildFailed ? "child-failed" : "terminated");
                        return Behaviors.same();
                      })
                  .build();
            });
    ActorRef<String> parentRef = kit.spawn(parent);
    parentRef.tell("fail");
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(Duration.ofMillis(100));
    parentSaw.expectMessage("terminated");
    kit.testKit().stop(parentRef);
  }
}
