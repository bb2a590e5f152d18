package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.Receives;
import dev.supervision.backoff.testsupport.Supervised;
import dev.supervision.backoff.testsupport.TestChild;
import dev.supervision.backoff.testsupport.WatchingParent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.UnhandledMessage;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a restart does to the failed incarnation, and the stash: messages and signals of a backoff. */
final class LifecycleTest {

  // the kit starts its actor system when the class starts (a runner that runs the class again in
  // the same JVM gets a new one)
  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration QUIET = Duration.ofMillis(150);

  /** A probe subscribed to Dropped before this returns (the typed Subscribe message is asynchronous). */
  static TestProbe<Dropped> droppedProbe() {
    TestProbe<Dropped> probe = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(probe.ref()), Dropped.class);
    return probe;
  }

  static BackoffPolicy unjittered() {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofHours(1));
  }

  /**
   * {@link #unjittered()} with a listener that tells {@code events} every event, so that a test can
   * wait until a failure has been handled (its {@code RestartScheduled}) before it moves the clock.
   */
  static BackoffPolicy reporting(TestProbe<BackoffEvent> events) {
    return unjittered().withListener(events.ref()::tell);
  }

  /** Waits until the supervisor has handled a failure and scheduled its restart. */
  static void awaitScheduled(TestProbe<BackoffEvent> events) {
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
  }

  /** A {@link TestChild} under {@code policy}, started ("started" taken from its probe). */
  static Supervised testChild(BackoffPolicy policy) {
    return Supervised.start(kit, probe -> TestChild.create(probe.ref()), events -> policy);
  }

  /** A kid that tells {@code probe} {@code message} when it stops. */
  static Behavior<String> kidTellingItsStop(TestProbe<String> probe, String message) {
    return Receives.telling(Behaviors.receive(String.class), PostStop.class, probe.ref(), message)
        .build();
  }

  /**
   * {@link Receives#failing()} with a case for every other message that tells {@code probe}
   * "got:m".
   */
  static Behavior<String> failingAndReporting(TestProbe<String> probe) {
    return Receives.reporting(Receives.failing(), "got:", probe.ref()).build();
  }

  @Test
  void theFailedBehaviorGetsPreRestartBeforeTheNewIncarnationStarts() {
    Supervised s = testChild(unjittered());
    s.tell("fail");
    s.probe().expectMessage("preRestart"); // delivered at the failure, before the backoff
    kit.time().timePasses(Duration.ofMillis(100));
    s.probe().expectMessage("started");
  }

  @Test
  void childrenAreStoppedBeforeTheNewIncarnationSoItCanReuseTheirNames() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    Behavior<String> kid = kidTellingItsStop(probe, "kid-stopped");
    Behavior<String> parent =
        Behaviors.setup(
            ctx -> {
              ctx.spawn(kid, "kid"); // throws InvalidActorNameException if the old kid still lived
              probe.ref().tell("started-" + incarnation.incrementAndGet());
              return Receives.failing().build();
            });
    // max restarts 1: a start failure caused by the name would end in a stop, not in started-2
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(parent, reporting(events).withMaxRestarts(1)));
    probe.expectMessage("started-1");
    actor.tell("fail");
    probe.expectMessage("kid-stopped");
    awaitScheduled(events);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started-2");
  }

  /**
   * The kid's {@code PostStop} blocks its thread until the test opens a latch, so the kid is still
   * alive when the backoff has long passed. The restart must wait for its {@code Terminated}: the
   * new incarnation starts only after the kid's {@code PostStop} returned. (Each incarnation spawns
   * its kid under a name of its own, so that a restart that does not wait shows as an early
   * "started-2" rather than as a failed spawn.)
   */
  @Test
  void theRestartWaitsForChildrenThatAreSlowToStop() throws Exception {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Behavior<String> slowKid =
        Behaviors.receive(String.class)
            .onSignal(
                PostStop.class,
                s -> {
                  probe.ref().tell("kid-stopping");
                  // bounded, so that a broken test cannot hang a dispatcher thread forever
                  boolean released = release.await(30, java.util.concurrent.TimeUnit.SECONDS);
                  probe.ref().tell(released ? "kid-stopped" : "kid-never-released");
                  return Behaviors.same();
                })
            .build();
    Behavior<String> parent =
        Behaviors.setup(
            ctx -> {
              int n = incarnation.incrementAndGet();
              ctx.spawn(slowKid, "slow-kid-" + n);
              probe.ref().tell("started-" + n);
              return Receives.failing().build();
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(parent, unjittered()));
    probe.expectMessage("started-1");
    actor.tell("fail");
    try {
      probe.expectMessage("kid-stopping"); // the failure is handled: the kid is being stopped
      kit.time().timePasses(Duration.ofSeconds(1)); // ten times the 100 ms backoff
      probe.expectNoMessage(Duration.ofMillis(300)); // no restart while the kid is still stopping
    } finally {
      release.countDown(); // also when the test fails, so that the kid's thread is not held
    }
    probe.expectMessage("kid-stopped");
    probe.expectMessage("started-2"); // after the kid's termination, not before
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
    Behavior<String> kid = kidTellingItsStop(probe, "kid-stopped");
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

  @Test
  void timersOfTheFailedIncarnationAreCancelled() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    Behavior<String> child =
        Behaviors.setup(
            ctx ->
                Behaviors.withTimers(
                    timers -> {
                      if (incarnation.incrementAndGet() == 1) {
                        timers.startSingleTimer("tick", "tick", Duration.ofMillis(500));
                      }
                      probe.ref().tell("started");
                      return failingAndReporting(probe);
                    }));
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, reporting(events)));
    probe.expectMessage("started");
    actor.tell("fail");
    awaitScheduled(events);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    kit.time().timePasses(Duration.ofSeconds(1)); // the old timer would have fired at 500 ms
    probe.expectNoMessage(QUIET);
    // control: the same timer does fire when nothing fails
    actor.tell("control");
    probe.expectMessage("got:control");
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
              return Receives.reporting(Receives.failing(), "got:", probe.ref())
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        timers.startSingleTimer("late", Duration.ofMillis(150));
                        return Behaviors.same();
                      })
                  .build();
            });
    BackoffPolicy policy = reporting(events);
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

  @Test
  void messagesDuringTheBackoffAreStashedAndDeliveredInOrder() {
    TestProbe<Dropped> dropped = droppedProbe();
    Supervised s = testChild(unjittered().withStashCapacity(3));
    TestProbe<String> probe = s.probe();
    ActorRef<String> actor = s.actor();
    actor.tell("fail");
    for (int i = 1; i <= 5; i++) {
      actor.tell("m" + i);
    }
    probe.expectMessage("preRestart");
    Dropped d4 = dropped.receiveMessage();
    Dropped d5 = dropped.receiveMessage();
    assertEquals("m4", d4.message());
    assertEquals("m5", d5.message());
    assertEquals(actor.path(), d4.recipient().path());
    probe.expectNoMessage(QUIET); // nothing is delivered before the restart
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:m1");
    probe.expectMessage("got:m2");
    probe.expectMessage("got:m3");
    actor.tell("after");
    probe.expectMessage("got:after");
  }

  @Test
  void aStashedMessageThatFailsAgainRestartsAndTheRestIsKept() {
    Supervised s = testChild(unjittered());
    TestProbe<String> probe = s.probe();
    ActorRef<String> actor = s.actor();
    actor.tell("fail");
    actor.tell("a");
    actor.tell(
        "fail"); // replayed after the restart: fails again, PreRestart to the new incarnation
    actor.tell("b");
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:a");
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(199));
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofMillis(1));
    probe.expectMessage("started");
    probe.expectMessage("got:b");
  }

  @Test
  void aZeroStashDropsEveryMessageOfTheBackoff() {
    TestProbe<Dropped> dropped = droppedProbe();
    Supervised s = testChild(unjittered().withStashCapacity(0));
    TestProbe<String> probe = s.probe();
    s.tell("fail");
    s.tell("lost");
    probe.expectMessage("preRestart");
    assertEquals(
        "lost", dropped.receiveMessage().message()); // dropped after the restart was scheduled
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectNoMessage(QUIET);
  }

  @Test
  void stashedMessagesOfAnActorStoppedDuringItsBackoffGoToTheEventStream() {
    TestProbe<Dropped> dropped = droppedProbe();
    List<BackoffEvent> events = new CopyOnWriteArrayList<>();
    Supervised s = testChild(unjittered().withStashCapacity(2).withListener(events::add));
    TestProbe<String> probe = s.probe();
    ActorRef<String> actor = s.actor();
    actor.tell("fail");
    actor.tell("kept-1");
    actor.tell("kept-2");
    actor.tell("overflow"); // dropped at once: proves the two before it are in the stash
    probe.expectMessage("preRestart");
    assertEquals("overflow", dropped.receiveMessage().message());
    kit.testKit()
        .stop(actor); // a stop overtakes messages still in the mailbox, hence the proof above
    assertEquals("kept-1", dropped.receiveMessage().message());
    assertEquals("kept-2", dropped.receiveMessage().message());
    assertEquals(new BackoffEvent.StoppedDuringBackoff(actor, 1, 2), events.get(events.size() - 1));
  }

  @Test
  void preRestartThatThrowsDoesNotPreventTheRestart() {
    TestProbe<String> probe = kit.createTestProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Receives.failing()
                  .onSignal(
                      PreRestart.class,
                      s -> {
                        throw new TestChild.Boom("in PreRestart");
                      })
                  .build();
            });
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, reporting(events)));
    probe.expectMessage("started");
    actor.tell("fail");
    awaitScheduled(events); // scheduled although PreRestart threw
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
  }

  @Test
  void aStashedMessageThatStopsTheActorGivesPostStopToTheBehaviorThatStopped() {
    Supervised s = testChild(unjittered());
    TestProbe<String> probe = s.probe();
    s.tell("fail");
    s.tell("a");
    s.tell("stop"); // replayed after the restart: the behavior returns Behaviors.stopped()
    probe.expectMessage("preRestart");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("got:a");
    probe.expectMessage("postStop");
    s.expectTerminated();
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
    BackoffPolicy policy = reporting(events);
    Behavior<String> parent =
        WatchingParent.of(
            BackoffSupervisor.wrap(TestChild.create(probe.ref()), policy), "kid", parentSaw.ref());
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

  @Test
  void signalsThatArriveDuringTheBackoffAreStashedAndDeliveredAfterTheRestart() {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    Behavior<String> child = watching(watched, probe, Integer.MAX_VALUE);
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, reporting(events)));
    probe.expectMessage("started");
    actor.tell("fail");
    awaitScheduled(events); // in the backoff now
    kit.testKit().stop(watched); // its Terminated reaches the actor during the backoff
    probe.expectNoMessage(QUIET);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    probe.expectMessage("saw-terminated");
  }

  /**
   * A child whose first {@code watchingIncarnations} incarnations watch {@code watched}; it fails on
   * "fail" and tells "saw-terminated" on a {@code Terminated}.
   */
  private static Behavior<String> watching(
      ActorRef<String> watched, TestProbe<String> probe, int watchingIncarnations) {
    AtomicInteger incarnation = new AtomicInteger();
    return Behaviors.setup(
        ctx -> {
          if (incarnation.incrementAndGet() <= watchingIncarnations) {
            ctx.watch(watched);
          }
          probe.ref().tell("started");
          return Receives.telling(
                  Receives.failing(), Terminated.class, probe.ref(), "saw-terminated")
              .build();
        });
  }

  /**
   * Only the first incarnation watches {@code watched}; its {@code Terminated} arrives during the
   * backoff and is delivered to the restarted behavior, which never watched it itself (so the
   * signal can only come from the stash).
   */
  private static Behavior<String> watchingOnce(ActorRef<String> watched, TestProbe<String> probe) {
    return watching(watched, probe, 1);
  }

  @Test
  void aSignalOfTheBackoffIsStashedAndDeliveredToTheRestartedBehavior() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    BackoffPolicy policy = reporting(events);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(watchingOnce(watched, probe), policy));
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
    TestProbe<Dropped> dropped = droppedProbe();
    ActorRef<String> watched = kit.spawn(Behaviors.<String>empty());
    BackoffPolicy policy = reporting(events).withStashCapacity(0);
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(watchingOnce(watched, probe), policy));
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

  @Test
  void aChildWatchedWithWatchWithIsStoppedAndItsMessageIsNotDelivered() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    Behavior<String> parent =
        Behaviors.setup(
            ctx -> {
              ActorRef<String> kid = ctx.spawn(Behaviors.<String>empty(), "kid");
              ctx.watchWith(kid, "kid-died"); // the supervisor must unwatch before it watches
              probe.ref().tell("started-" + incarnation.incrementAndGet());
              return failingAndReporting(probe);
            });
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(parent, reporting(events).withMaxRestarts(1)));
    probe.expectMessage("started-1");
    actor.tell("fail");
    awaitScheduled(events);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started-2");
    probe.expectNoMessage(QUIET); // no "got:kid-died" replayed to the new incarnation
  }

  /**
   * A child that stashes with Pekko's {@code StashBuffer} until "open", then unstashes into {@link
   * #active}; a failure while unstashing reaches the supervisor wrapped in Pekko's internal {@code
   * UnstashException}.
   */
  static Behavior<String> stashingChild(ActorRef<String> probe) {
    return Behaviors.withStash(
        10,
        stash -> {
          probe.tell("waiting");
          BehaviorBuilder<String> waiting =
              Behaviors.receive(String.class)
                  .onMessageEquals("open", () -> stash.unstashAll(active(probe)))
                  .onMessage(
                      String.class,
                      m -> {
                        stash.stash(m);
                        return Behaviors.same();
                      });
          return tellingRestartAndStop(waiting, probe, "waiting-").build();
        });
  }

  static Behavior<String> active(ActorRef<String> probe) {
    BehaviorBuilder<String> active =
        Receives.reporting(
            Behaviors.receive(String.class)
                .onMessageEquals(
                    "boom",
                    () -> {
                      throw new TestChild.Boom("boom");
                    }),
            "active:",
            probe);
    return tellingRestartAndStop(active, probe, "active-").build();
  }

  /** Adds cases that tell {@code probe} {@code name + "preRestart"} and {@code "postStop"}. */
  static BehaviorBuilder<String> tellingRestartAndStop(
      BehaviorBuilder<String> receive, ActorRef<String> probe, String name) {
    return Receives.telling(
        Receives.telling(receive, PreRestart.class, probe, name + "preRestart"),
        PostStop.class,
        probe,
        name + "postStop");
  }

  @Test
  void aFailureWhileUnstashingIsTheFailureOfTheBehaviorThatThrew() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                stashingChild(probe.ref()), unjittered().withListener(events.ref()::tell)));
    probe.expectMessage("waiting");
    actor.tell("a");
    actor.tell("boom");
    actor.tell("open");
    probe.expectMessage("active:a");
    probe.expectMessage("active-preRestart"); // not the waiting behavior, which did not throw
    BackoffEvent.RestartScheduled scheduled =
        events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    assertInstanceOf(
        TestChild.Boom.class,
        scheduled.cause(),
        "the failure is the child's exception, not Pekko's UnstashException around it");
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("waiting");
  }

  @Test
  void aPermanentFailureWhileUnstashingStopsTheActorAndTheBehaviorThatThrewGetsPostStop() {
    TestProbe<String> probe = kit.createTestProbe();
    List<BackoffEvent> events = new CopyOnWriteArrayList<>();
    BackoffPolicy policy = unjittered().withStopOn(TestChild.Boom.class).withListener(events::add);
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(stashingChild(probe.ref()), policy));
    probe.expectMessage("waiting");
    actor.tell("boom");
    actor.tell("open");
    probe.expectMessage("active-postStop");
    probe.expectTerminated(actor);
    BackoffEvent.GaveUp gaveUp = assertInstanceOf(BackoffEvent.GaveUp.class, events.get(0));
    assertEquals(BackoffEvent.Reason.PERMANENT_FAILURE, gaveUp.reason());
    assertInstanceOf(TestChild.Boom.class, gaveUp.cause());
  }

  @Test
  void aStoppedBehaviorWithACallbackRunsItOnceAfterThePostStopOfTheBehaviorThatStopped() {
    TestProbe<String> probe = kit.createTestProbe();
    Behavior<String> child =
        Receives.telling(
                Behaviors.receive(String.class)
                    .onMessageEquals(
                        "stop", () -> Behaviors.stopped(() -> probe.ref().tell("callback"))),
                PostStop.class,
                probe.ref(),
                "postStop")
            .build();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, unjittered()));
    actor.tell("stop");
    probe.expectMessage("postStop");
    probe.expectMessage("callback");
    probe.expectTerminated(actor);
    probe.expectNoMessage(QUIET);
  }

  @Test
  void aNewBehaviorReturnedByTheChildHandlesTheNextMessagesAndARestartGoesBackToTheInitialOne() {
    TestProbe<String> probe = kit.createTestProbe();
    Behavior<String> second =
        Receives.reporting(Receives.failing(), "second:", probe.ref()).build();
    Behavior<String> first =
        Receives.reporting(
                Behaviors.receive(String.class).onMessageEquals("become", () -> second),
                "first:",
                probe.ref())
            .build();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(first, reporting(events)));
    actor.tell("x");
    actor.tell("become");
    actor.tell("y");
    actor.tell("fail");
    actor.tell("z"); // stashed, delivered to the restarted first behavior
    probe.expectMessage("first:x");
    probe.expectMessage("second:y");
    awaitScheduled(events);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("first:z");
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
    TestProbe<String> parentSaw = kit.createTestProbe();
    ActorRef<String> parent =
        kit.spawn(
            WatchingParent.of(BackoffSupervisor.wrap(child, policy), "ignores", parentSaw.ref()));
    parent.tell("first");
    probe.expectMessage("got:first");
    parent.tell("second");
    parent.tell("third");
    probe.expectNoMessage(Duration.ofMillis(200));
    events.expectNoMessage(Duration.ZERO);
    parentSaw.expectNoMessage(Duration.ZERO); // the actor still runs
    kit.testKit().stop(parent);
  }

  @Test
  void aSetupReturnedByTheChildIsStartedBeforeItHandlesTheNextMessage() {
    TestProbe<String> probe = kit.createTestProbe();
    Behavior<String> later =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("later-started");
              return Behaviors.receiveMessage(
                  m -> {
                    probe.ref().tell("later:" + m);
                    return Behaviors.same();
                  });
            });
    Behavior<String> first =
        Behaviors.receive(String.class).onMessageEquals("become", () -> later).build();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(first, unjittered()));
    actor.tell("become");
    probe.expectMessage("later-started");
    actor.tell("x");
    probe.expectMessage("later:x");
  }

  @Test
  void aStashedMessageTheRestartedChildDoesNotHandleIsPublishedAsUnhandled() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<UnhandledMessage> unhandled = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(unhandled.ref()), UnhandledMessage.class);
    Behavior<String> child =
        Receives.failing()
            .onMessageEquals(
                "known",
                () -> {
                  probe.ref().tell("got:known");
                  return Behaviors.same();
                })
            .build(); // anything else is unhandled
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, reporting(events)));
    actor.tell("fail");
    actor.tell("strange"); // stashed during the backoff
    actor.tell("known");
    awaitScheduled(events);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("got:known");
    UnhandledMessage published = unhandled.expectMessageClass(UnhandledMessage.class);
    assertEquals("strange", published.getMessage());
  }
}
