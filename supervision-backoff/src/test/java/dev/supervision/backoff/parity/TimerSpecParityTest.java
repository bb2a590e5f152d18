package dev.supervision.backoff.parity;

import static dev.supervision.backoff.parity.Target.exactBackoff;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.TestException;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervision cases of Pekko 1.7.0's typed {@code TimerSpec}, as JUnit 5 + {@code ManualTime}
 * tests against {@link BackoffSupervisor#wrap}. Pekko runs them with its plain {@code restart}
 * strategy; here the restart comes after a backoff of 100 ms, which is the only change: the timers
 * of the failed incarnation are cancelled (the failed behavior sees its timer inactive in {@code
 * PreRestart}), and a timer message that was already in the mailbox when the failure happened is
 * discarded, not delivered to the new incarnation. Each test's {@link DisplayName} is the Scala
 * test's name.
 *
 * <p>Where Pekko lets a real 1 s interval pass (or sleeps to let a timer message reach the mailbox),
 * these tests move the manual clock while the actor is held in a message by a latch, which puts
 * the timer message in the mailbox deterministically. Skipped: TimerSpec's cases without a
 * supervisor (scheduling, replacing, cancelling timers, the timers of stopped actors).
 */
final class TimerSpecParityTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration B = Duration.ofMillis(100);
  static final Duration INTERVAL = Duration.ofSeconds(1);
  static final Duration QUIET = Duration.ofMillis(200);

  sealed interface Command {}

  record Tick(int n) implements Command {}

  record SlowThenThrow(CountDownLatch latch, RuntimeException failure) implements Command {}

  enum Simple implements Command {
    BUMP,
    END
  }

  sealed interface Event {}

  record Tock(int n) implements Event {}

  record GotPostStop(boolean timerActive) implements Event {}

  record GotPreRestart(boolean timerActive) implements Event {}

  static final class Exc extends RuntimeException {
    Exc() {
      super("simulated exc", null, false, false);
    }
  }

  /** Pekko's {@code target}: reports ticks, bumps its timer, throws when told, reports its timer in signals. */
  static Behavior<Command> target(
      ActorRef<Event> monitor, TimerScheduler<Command> timer, int bumpCount) {
    return Behaviors.receive(Command.class)
        .onMessage(
            Tick.class,
            t -> {
              monitor.tell(new Tock(t.n()));
              return Behaviors.same();
            })
        .onMessageEquals(
            Simple.BUMP,
            () -> {
              int next = bumpCount + 1;
              timer.startTimerWithFixedDelay("T", new Tick(next), INTERVAL);
              return target(monitor, timer, next);
            })
        .onMessageEquals(Simple.END, Behaviors::stopped)
        .onMessage(
            SlowThenThrow.class,
            s -> {
              s.latch().await(10, TimeUnit.SECONDS);
              throw s.failure();
            })
        .onSignalEquals(
            PreRestart.instance(),
            () -> {
              monitor.tell(new GotPreRestart(timer.isTimerActive("T")));
              return Behaviors.same();
            })
        .onSignalEquals(
            PostStop.instance(),
            () -> {
              monitor.tell(new GotPostStop(timer.isTimerActive("T")));
              return Behaviors.same();
            })
        .build();
  }

  static BackoffPolicy backoff(TestProbe<BackoffEvent> events) {
    return exactBackoff(B, B).withResetAfter(Duration.ofHours(1)).withListener(events.ref()::tell);
  }

  /** Holds the actor in a message while the clock passes a tick of the old timer into its mailbox, then fails it. */
  static void failWithATimerMessageInTheMailbox(ActorRef<Command> ref) {
    CountDownLatch latch = new CountDownLatch(1);
    try {
      ref.tell(new SlowThenThrow(latch, new Exc()));
      kit.time().timePasses(INTERVAL); // the old incarnation's next tick goes to the mailbox
    } finally {
      latch.countDown();
    }
  }

  @Test
  @DisplayName("discard timers from old incarnation after restart, alt 1")
  void discardTimersFromOldIncarnationAlt1() {
    TestProbe<Event> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    AtomicInteger startCounter = new AtomicInteger();
    ActorRef<Command> ref =
        kit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.withTimers(
                    timer -> {
                      timer.startTimerWithFixedDelay(
                          "T", new Tick(startCounter.incrementAndGet()), INTERVAL);
                      return target(probe.ref(), timer, 1);
                    }),
                backoff(events)));
    kit.time().timePasses(INTERVAL);
    probe.expectMessage(new Tock(1));
    failWithATimerMessageInTheMailbox(ref); // Tick(1) is in the mailbox, for the old incarnation
    probe.expectMessage(new GotPreRestart(false));
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(B);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    probe.expectNoMessage(QUIET); // the stale Tick(1) was discarded
    kit.time().timePasses(INTERVAL);
    probe.expectMessage(new Tock(2)); // the new incarnation's timer
    ref.tell(Simple.END);
    probe.expectMessage(new GotPostStop(false));
  }

  @Test
  @DisplayName("discard timers from old incarnation after restart, alt 2")
  void discardTimersFromOldIncarnationAlt2() {
    TestProbe<Event> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<Command> ref =
        kit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.withTimers(
                    timer -> {
                      timer.startTimerWithFixedDelay("T", new Tick(1), INTERVAL);
                      return target(probe.ref(), timer, 1);
                    }),
                backoff(events)));
    kit.time().timePasses(INTERVAL);
    probe.expectMessage(new Tock(1));
    ref.tell(Simple.BUMP); // changes the state, so that we see that the restart starts over
    ref.tell(new Tick(99)); // answered after the bump: the bump is handled before the clock moves
    probe.expectMessage(new Tock(99));
    kit.time().timePasses(INTERVAL);
    probe.expectMessage(new Tock(2));
    failWithATimerMessageInTheMailbox(ref); // Tick(2) is in the mailbox, for the old incarnation
    probe.expectMessage(new GotPreRestart(false));
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(B);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    probe.expectNoMessage(QUIET); // the stale Tick(2) was discarded
    kit.time().timePasses(INTERVAL);
    probe.expectMessage(new Tock(1)); // started over
    ref.tell(Simple.END);
    probe.expectMessage(new GotPostStop(false));
  }

  @Test
  @DisplayName("discard TimerMsg on restart")
  void discardTimerMsgOnRestart() {
    TestProbe<Event> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    CountDownLatch mailboxFilled = new CountDownLatch(1);
    Behavior<Command> behv =
        Behaviors.receive(Command.class)
            .onMessageEquals(
                new Tick(-1),
                () -> {
                  probe.ref().tell(new Tock(-1));
                  return Behaviors.<Command>withTimers(
                      timer -> {
                        timer.startSingleTimer(new Tick(0), Duration.ofMillis(5));
                        return Behaviors.receive(Command.class)
                            .onMessageEquals(
                                new Tick(0),
                                () -> {
                                  timer.startSingleTimer(
                                      new Tick(1),
                                      Duration.ofMillis(5)); // before Tock(0): see below
                                  probe.ref().tell(new Tock(0));
                                  // let Tick(1) reach the mailbox before the failure
                                  mailboxFilled.await(10, TimeUnit.SECONDS);
                                  throw new TestException("boom");
                                })
                            .build();
                      });
                })
            .onMessage(
                Tick.class,
                t -> {
                  probe.ref().tell(new Tock(t.n()));
                  return Behaviors.same();
                })
            .onMessageEquals(Simple.END, Behaviors::stopped)
            .build();
    ActorRef<Command> ref = kit.spawn(BackoffSupervisor.wrap(behv, backoff(events)));
    ref.tell(new Tick(-1));
    probe.expectMessage(new Tock(-1));
    try {
      kit.time().timePasses(Duration.ofMillis(5));
      probe.expectMessage(new Tock(0));
      kit.time().timePasses(Duration.ofMillis(5)); // Tick(1) goes to the mailbox
    } finally {
      mailboxFilled.countDown();
    }
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(B);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    probe.expectNoMessage(QUIET); // no Tock(1): the stale timer message was discarded
    // restarted, and not stopped by the stale timer message
    ref.tell(new Tick(100));
    probe.expectMessage(new Tock(100));
    ref.tell(Simple.END);
  }

  @Test
  @DisplayName("discard TimerMsg when exception from withTimers block")
  void discardTimerMsgWhenExceptionFromWithTimersBlock() {
    TestProbe<Event> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    CountDownLatch mailboxFilled = new CountDownLatch(1);
    CountDownLatch timerStarted = new CountDownLatch(1);
    Behavior<Command> behv =
        Behaviors.receive(Command.class)
            .onMessageEquals(
                new Tick(-1),
                () -> {
                  probe.ref().tell(new Tock(-1));
                  return Behaviors.<Command>withTimers(
                      timer -> {
                        timer.startSingleTimer(new Tick(0), Duration.ofMillis(5));
                        timerStarted.countDown();
                        // let Tick(0) reach the mailbox before the failure
                        mailboxFilled.await(10, TimeUnit.SECONDS);
                        throw new TestException("boom");
                      });
                })
            .onMessage(
                Tick.class,
                t -> {
                  probe.ref().tell(new Tock(t.n()));
                  return Behaviors.same();
                })
            .onMessageEquals(Simple.END, Behaviors::stopped)
            .build();
    ActorRef<Command> ref = kit.spawn(BackoffSupervisor.wrap(behv, backoff(events)));
    ref.tell(new Tick(-1));
    probe.expectMessage(new Tock(-1));
    try {
      timerStarted.await(10, TimeUnit.SECONDS);
      kit.time().timePasses(Duration.ofMillis(5)); // Tick(0) goes to the mailbox
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    } finally {
      mailboxFilled.countDown();
    }
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(B);
    events.expectMessageClass(BackoffEvent.Restarted.class);
    probe.expectNoMessage(QUIET); // no Tock(0)
    ref.tell(new Tick(100));
    probe.expectMessage(new Tock(100));
    ref.tell(Simple.END);
  }
}
