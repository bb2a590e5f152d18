package dev.supervision.backoff.parity;

import static dev.supervision.backoff.parity.Target.exactBackoff;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.TestException;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervision cases of Pekko 1.7.0's {@code UnstashingSpec} (in {@code StashSpec.scala}) that
 * make sense for a restart-with-backoff supervisor, as JUnit 5 + {@code ManualTime} tests against
 * {@link BackoffSupervisor#wrap}: a failure while the child's own {@code StashBuffer} unstashes is
 * the failure of the behavior that threw, which gets {@code PreRestart}; the rest of that stash dies
 * with the incarnation; and a restart waits for a child that is slow to stop. Each test's {@link
 * DisplayName} is the Scala test's name; Pekko's {@code restartWithBackoff(100 ms, 100 ms, 0.0)} is
 * {@code exponential(100 ms, 100 ms)} with {@code Jitter.none()}.
 *
 * <p>Pinned on purpose: the restart is logged at WARN (Pekko: ERROR), and "signal PostStop to the
 * latest unstashed behavior on failure with stop supervision" becomes the same case with a class
 * listed in {@code withStopOn}. Skipped: the plain-{@code restart} variants (their backoff variants
 * are here), "handle resume correctly on failure unstashing" (no {@code resume} strategy here), and
 * the cases without any supervisor.
 */
final class UnstashingSpecParityTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
  static final Duration B = Duration.ofMillis(100);
  static final Duration QUIET = Duration.ofMillis(200);

  static Behavior<String> slowStoppingChild(CountDownLatch latch) {
    return Behaviors.receive(String.class)
        .onSignalEquals(
            PostStop.instance(),
            () -> {
              latch.await(10, TimeUnit.SECONDS);
              return Behaviors.same();
            })
        .build();
  }

  /** Pekko's {@code stashingBehavior}: stashes "stash..." messages, then unstashes into numbered behaviors. */
  static Behavior<String> stashingBehavior(
      ActorRef<String> probe, CountDownLatch slowStoppingChild) {
    return Behaviors.setup(
        ctx -> {
          if (slowStoppingChild != null) {
            ctx.spawnAnonymous(slowStoppingChild(slowStoppingChild));
          }
          return Behaviors.withStash(
              10,
              stash ->
                  Behaviors.receive(String.class)
                      .onMessage(
                          String.class,
                          m -> m.startsWith("stash"),
                          m -> {
                            stash.stash(m);
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          "unstash", () -> stash.unstashAll(unstashing(probe, stash, 0)))
                      .onMessageEquals(
                          "get-current",
                          () -> {
                            probe.tell("current-00");
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          "get-stash-size",
                          () -> {
                            probe.tell("stash-size-" + stash.size());
                            return Behaviors.same();
                          })
                      .build());
        });
  }

  static Behavior<String> unstashing(ActorRef<String> probe, StashBuffer<String> stash, int n) {
    return Behaviors.receive(String.class)
        .onMessageEquals(
            "stash",
            () -> {
              probe.tell("unstashing-" + n);
              return unstashing(probe, stash, n + 1);
            })
        .onMessageEquals(
            "stash-fail",
            () -> {
              probe.tell("stash-fail-" + n);
              throw new TestException("unstash-fail");
            })
        .onMessageEquals(
            "get-current",
            () -> {
              probe.tell("current-" + n);
              return Behaviors.same();
            })
        .onMessageEquals(
            "get-stash-size",
            () -> {
              probe.tell("stash-size-" + stash.size());
              return Behaviors.same();
            })
        .onMessageEquals("unstash", () -> stash.unstashAll(unstashing(probe, stash, n)))
        .onSignalEquals(
            PreRestart.instance(),
            () -> {
              probe.tell("pre-restart-" + n);
              return Behaviors.same();
            })
        .onSignalEquals(
            PostStop.instance(),
            () -> {
              probe.tell("post-stop-" + n);
              return Behaviors.same();
            })
        .build();
  }

  static BackoffPolicy backoff(TestProbe<BackoffEvent> events) {
    return exactBackoff(B, B).withListener(events.ref()::tell);
  }

  /** Pekko's {@code testPreRestart}, with the backoff driven by ManualTime. */
  static void testPreRestart(
      TestProbe<String> probe,
      TestProbe<BackoffEvent> events,
      CountDownLatch childLatch,
      ActorRef<String> ref) {
    ref.tell("stash");
    ref.tell("stash");
    ref.tell("stash-fail");
    ref.tell("stash");
    // pinned on purpose: WARN, not Pekko's ERROR
    LoggingTestKit.warn("unstash-fail")
        .withLoggerName("dev.supervision.backoff.BackoffSupervisor")
        .expect(
            kit.system(),
            () -> {
              ref.tell("unstash");
              // stashed by the supervisor during the backoff (and while it waits for the child)
              ref.tell("get-current");
              probe.expectMessage("unstashing-0");
              probe.expectMessage("unstashing-1");
              probe.expectMessage("stash-fail-2");
              probe.expectMessage("pre-restart-2");
              return null;
            });
    events.expectMessageClass(BackoffEvent.RestartScheduled.class);
    kit.time().timePasses(B);
    if (childLatch != null) {
      probe.expectNoMessage(QUIET); // the restart waits for the slow child
      childLatch.countDown();
    }
    probe.expectMessage("current-00");
    ref.tell("get-stash-size");
    probe.expectMessage("stash-size-0");
    events.expectMessageClass(BackoffEvent.Restarted.class);
  }

  @Test
  @DisplayName(
      "signal PreRestart to the latest unstashed behavior on failure with backoff supervision")
  void preRestartToTheLatestUnstashedBehavior() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> ref =
        kit.spawn(BackoffSupervisor.wrap(stashingBehavior(probe.ref(), null), backoff(events)));
    testPreRestart(probe, events, null, ref);
    // one more time, to ensure that the backoff supervision is kept
    testPreRestart(probe, events, null, ref);
  }

  @Test
  @DisplayName(
      "signal PreRestart to the latest unstashed behavior on failure with backoff supervision"
          + " and slow stopping child")
  void preRestartToTheLatestUnstashedBehaviorWithASlowChild() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    CountDownLatch childLatch = new CountDownLatch(1);
    ActorRef<String> ref =
        kit.spawn(
            BackoffSupervisor.wrap(stashingBehavior(probe.ref(), childLatch), backoff(events)));
    try {
      testPreRestart(probe, events, childLatch, ref);
    } finally {
      childLatch.countDown();
    }
  }

  @Test
  @DisplayName(
      "signal PostStop to the latest unstashed behavior on failure with stop supervision"
          + " (here: a class listed in withStopOn)")
  void postStopToTheLatestUnstashedBehavior() {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    ActorRef<String> ref =
        kit.spawn(
            BackoffSupervisor.wrap(
                stashingBehavior(probe.ref(), null),
                backoff(events).withStopOn(TestException.class)));
    ref.tell("stash");
    ref.tell("stash");
    ref.tell("stash-fail");
    ref.tell("stash");
    ref.tell("unstash");
    probe.expectMessage("unstashing-0");
    probe.expectMessage("unstashing-1");
    probe.expectMessage("stash-fail-2");
    probe.expectMessage("post-stop-2");
    probe.expectTerminated(ref);
  }
}
