package dev.supervision.backoff.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import dev.supervision.backoff.testsupport.TestChild;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A behavior that wraps its own next state ({@code counter(n) = wrap(receive(m -> counter(n + 1)),
 * policy)}) keeps one supervisor per distinct policy, however often it re-wraps itself; the restart
 * count, the delay schedule and the reset carry on across re-wraps, and a restart starts the
 * behavior of the latest re-wrap. Before, every state change nested one more supervisor, until a
 * StackOverflowError killed the actor system.
 */
final class ReWrappingKeepsOneSupervisorLayerTest {

  // a pile of supervisors ends in a StackOverflowError: let it fail the test, not exit the JVM
  @RegisterExtension
  static final BackoffTestKit kit =
      BackoffTestKit.create(ConfigFactory.parseString("pekko.jvm-exit-on-fatal-error = off"));

  interface Msg {}

  enum Inc implements Msg {
    INSTANCE
  }

  enum Fail implements Msg {
    INSTANCE
  }

  record Report(ActorRef<Depth> replyTo) implements Msg {}

  /** How many supervisor layers a message passed through, and the counter's state. */
  record Depth(int layers, int count) {}

  static final class Boom extends RuntimeException {
    Boom() {
      super("boom", null, false, false);
    }
  }

  /** The number of supervisor layers on the stack of the current message: a stack-depth probe. */
  static int layersOnStack() {
    int layers = 0;
    for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
      if (frame.getClassName().equals("dev.supervision.backoff.internal.BackoffBehavior")
          && frame.getMethodName().equals("receive")) {
        layers++;
      }
    }
    return layers;
  }

  static Behavior<Msg> receive(
      int n, ActorRef<String> probe, BiFunction<Integer, ActorRef<String>, Behavior<Msg>> next) {
    return Behaviors.receive(Msg.class)
        .onMessage(Inc.class, m -> next.apply(n + 1, probe))
        .onMessage(
            Fail.class,
            m -> {
              throw new Boom();
            })
        .onMessage(
            Report.class,
            r -> {
              r.replyTo().tell(new Depth(layersOnStack(), n));
              return Behaviors.same();
            })
        .build();
  }

  static BackoffPolicy policy(TestProbe<BackoffEvent> events) {
    return BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(10))
        .withJitter(Jitter.none())
        .withResetAfter(Duration.ofSeconds(5))
        .withLoggingEnabled(false)
        .withListener(events.ref()::tell);
  }

  static final BackoffPolicy QUIET =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withLoggingEnabled(false);

  /** The common style: the factory returns wrap(receive(...)) directly. */
  static Behavior<Msg> counter(int n, BackoffPolicy policy) {
    return BackoffSupervisor.wrap(receive(n, null, (k, p) -> counter(k, policy)), policy);
  }

  static Depth report(ActorRef<Msg> actor) {
    TestProbe<Depth> replies = kit.createTestProbe();
    actor.tell(new Report(replies.ref()));
    // 5 s: a batch of 100,000 state changes takes about 0.1 s; an actor that died (a broken
    // supervisor, a stack overflow) fails here instead of after a minute
    return replies.receiveMessage(Duration.ofSeconds(5));
  }

  static long usedHeapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }

  @Test
  void aHundredStateChangesKeepOneLayerInEveryStyle() {
    // the small case of the bigger tests below: a supervisor that nests a layer per state change
    // fails here with 101 layers at once, instead of piling up thousands of layers first
    Map<String, BiFunction<Integer, ActorRef<String>, Behavior<Msg>>> styles =
        Map.of(
            "direct",
            (n, p) -> counter(n, QUIET),
            "setup",
            ReWrappingKeepsOneSupervisorLayerTest::inSetup,
            "withMdc",
            ReWrappingKeepsOneSupervisorLayerTest::withMdc,
            "wrap(setup(wrap))",
            (n, p) -> BackoffSupervisor.wrap(inSetup(n, p), QUIET));
    styles.forEach(
        (style, factory) -> {
          ActorRef<Msg> actor = kit.spawn(factory.apply(0, null));
          for (int i = 0; i < 100; i++) {
            actor.tell(Inc.INSTANCE);
          }
          assertEquals(new Depth(1, 100), report(actor), style);
          kit.testKit().stop(actor);
        });
  }

  @Test
  void aMillionStateChangesKeepOneLayerAndConstantMemory() {
    ActorRef<Msg> actor = kit.spawn(counter(0, QUIET));
    int batch = 100_000;
    long start = System.nanoTime();
    long heapAfterFirstBatch = 0;
    for (int b = 1; b <= 10; b++) {
      for (int i = 0; i < batch; i++) {
        actor.tell(Inc.INSTANCE);
      }
      // the reply is sent after the batch: the actor has handled every state change before it
      assertEquals(new Depth(1, b * batch), report(actor));
      if (b == 1) {
        heapAfterFirstBatch = usedHeapAfterGc();
      }
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    long heapAfterLastBatch = usedHeapAfterGc();
    long growth = heapAfterLastBatch - heapAfterFirstBatch;
    System.out.printf(
        "ReWrapping: 1,000,000 state changes in %d ms, depth 1, used heap after 100,000: %d KiB, after 1,000,000: %d KiB%n",
        elapsedMs, heapAfterFirstBatch / 1024, heapAfterLastBatch / 1024);
    // one nested supervisor per state change is at least 900,000 objects (tens of MiB) more
    assertTrue(growth < 16L * 1024 * 1024, "heap grew by " + growth + " bytes");
  }

  @Test
  void wrapOfWrapOfWrapIsOneLayer() {
    BackoffPolicy equalCopy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
            .withLoggingEnabled(false);
    ActorRef<Msg> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                BackoffSupervisor.wrap(
                    BackoffSupervisor.wrap(receive(0, null, (k, p) -> Behaviors.same()), QUIET),
                    equalCopy),
                QUIET));
    assertEquals(new Depth(1, 0), report(actor));
  }

  @Test
  void reWrapsInsideSetupOrAnInterceptorKeepOneLayer() {
    Map<String, BiFunction<Integer, ActorRef<String>, Behavior<Msg>>> styles =
        Map.of(
            "setup", ReWrappingKeepsOneSupervisorLayerTest::inSetup,
            "withMdc", ReWrappingKeepsOneSupervisorLayerTest::withMdc,
            "wrap(setup(wrap))", (n, p) -> BackoffSupervisor.wrap(inSetup(n, p), QUIET));
    styles.forEach(
        (style, factory) -> {
          ActorRef<Msg> actor = kit.spawn(factory.apply(0, null));
          for (int i = 0; i < 10_000; i++) {
            actor.tell(Inc.INSTANCE);
          }
          assertEquals(new Depth(1, 10_000), report(actor), style);
        });
  }

  static Behavior<Msg> inSetup(int n, ActorRef<String> probe) {
    return Behaviors.setup(
        ctx ->
            BackoffSupervisor.wrap(
                receive(n, probe, ReWrappingKeepsOneSupervisorLayerTest::inSetup), QUIET));
  }

  static Behavior<Msg> withMdc(int n, ActorRef<String> probe) {
    return BackoffSupervisor.wrap(
        Behaviors.withMdc(
            Msg.class,
            Map.of("n", "x"),
            receive(n, probe, ReWrappingKeepsOneSupervisorLayerTest::withMdc)),
        QUIET);
  }

  @Test
  void differentPoliciesNestOnceEach() {
    BackoffPolicy other = QUIET.withMaxRestarts(3);
    ActorRef<Msg> actor = kit.spawn(twoPolicies(0, QUIET, other));
    assertEquals(new Depth(2, 0), report(actor));
    for (int i = 0; i < 100; i++) {
      actor.tell(Inc.INSTANCE);
    }
    // a layer found only through the other policy's layer: missed, layers pile up and fail here
    assertEquals(new Depth(2, 100), report(actor));
    for (int i = 100; i < 10_000; i++) {
      actor.tell(Inc.INSTANCE);
    }
    assertEquals(new Depth(2, 10_000), report(actor));
  }

  static Behavior<Msg> twoPolicies(int n, BackoffPolicy inner, BackoffPolicy outer) {
    return BackoffSupervisor.wrap(
        BackoffSupervisor.wrap(receive(n, null, (k, p) -> twoPolicies(k, inner, outer)), inner),
        outer);
  }

  // ---------------------------------------------------------------- the restart state carries on

  /** wrap(setup(...)) re-wrapped directly: the supervisor adopts the new behavior. */
  static BiFunction<Integer, ActorRef<String>, Behavior<Msg>> direct(BackoffPolicy policy) {
    return new BiFunction<>() {
      @Override
      public Behavior<Msg> apply(Integer n, ActorRef<String> probe) {
        return BackoffSupervisor.wrap(started(n, probe, this), policy);
      }
    };
  }

  /** setup(wrap(setup(...))): the new supervisor is started by Pekko and takes over from the old. */
  static BiFunction<Integer, ActorRef<String>, Behavior<Msg>> hidden(BackoffPolicy policy) {
    return new BiFunction<>() {
      @Override
      public Behavior<Msg> apply(Integer n, ActorRef<String> probe) {
        return Behaviors.setup(ctx -> BackoffSupervisor.wrap(started(n, probe, this), policy));
      }
    };
  }

  static Behavior<Msg> started(
      int n, ActorRef<String> probe, BiFunction<Integer, ActorRef<String>, Behavior<Msg>> next) {
    return Behaviors.setup(
        ctx -> {
          probe.tell("started:" + n);
          return receive(n, probe, next);
        });
  }

  @Test
  void theCountTheScheduleAndTheResetCarryOnAcrossReWraps_direct() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    restartStateCarriesOn(direct(policy(events)), events);
  }

  @Test
  void theCountTheScheduleAndTheResetCarryOnAcrossReWraps_insideSetup() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    restartStateCarriesOn(hidden(policy(events)), events);
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

  private static void expectScheduled(TestProbe<BackoffEvent> events, int attempt, long delayMs) {
    BackoffEvent.RestartScheduled scheduled =
        assertInstanceOf(BackoffEvent.RestartScheduled.class, events.receiveMessage());
    assertEquals(attempt, scheduled.attempt());
    assertEquals(Duration.ofMillis(delayMs), scheduled.delay());
  }

  private static void restartStateCarriesOn(
      BiFunction<Integer, ActorRef<String>, Behavior<Msg>> factory,
      TestProbe<BackoffEvent> events) {
    TestProbe<String> probe = kit.createTestProbe();
    ActorRef<Msg> actor = kit.spawn(factory.apply(0, probe.ref()));
    probe.expectMessage("started:0");
    actor.tell(Inc.INSTANCE);
    probe.expectMessage("started:1");
    actor.tell(Fail.INSTANCE);
    expectScheduled(events, 1, 100);
    actor.tell(Inc.INSTANCE); // stashed: replayed after the restart, a re-wrap during the replay
    actor.tell(Inc.INSTANCE);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started:1"); // the restart starts the behavior of the latest re-wrap
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    probe.expectMessage("started:2");
    probe.expectMessage("started:3");
    assertEquals(new Depth(1, 3), report(actor));
    actor.tell(Fail.INSTANCE);
    expectScheduled(events, 2, 200); // the count went on: not attempt 1 of a fresh supervisor
    kit.time().timePasses(Duration.ofMillis(200));
    probe.expectMessage("started:3");
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    actor.tell(Inc.INSTANCE);
    probe.expectMessage("started:4");
    kit.time().timePasses(Duration.ofSeconds(5)); // the reset scheduled at the restart still fires
    BackoffEvent.BackoffReset reset =
        assertInstanceOf(BackoffEvent.BackoffReset.class, events.receiveMessage());
    assertEquals(2, reset.attempt());
    actor.tell(Fail.INSTANCE);
    expectScheduled(events, 1, 100);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started:4");
    assertEquals(new Depth(1, 4), report(actor));
  }

  @Test
  void aReWrapThatFailsWhileStartingContinuesTheCount() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy = policy(events);
    java.util.concurrent.atomic.AtomicBoolean failOnce =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    BiFunction<Integer, ActorRef<String>, Behavior<Msg>> factory =
        new BiFunction<>() {
          @Override
          public Behavior<Msg> apply(Integer n, ActorRef<String> p) {
            BiFunction<Integer, ActorRef<String>, Behavior<Msg>> self = this;
            return BackoffSupervisor.wrap(
                Behaviors.setup(
                    ctx -> {
                      if (n == 1 && failOnce.getAndSet(false)) {
                        throw new Boom();
                      }
                      p.tell("started:" + n);
                      return receive(n, p, self);
                    }),
                policy);
          }
        };
    ActorRef<Msg> actor = kit.spawn(factory.apply(0, probe.ref()));
    probe.expectMessage("started:0");
    actor.tell(Fail.INSTANCE);
    expectScheduled(events, 1, 100);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started:0");
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    actor.tell(Inc.INSTANCE); // the re-wrap's setup throws
    expectScheduled(events, 2, 200);
    kit.time().timePasses(Duration.ofMillis(200));
    probe.expectMessage("started:1"); // the restart starts the re-wrapped behavior
    assertEquals(new Depth(1, 1), report(actor));
  }

  @Test
  void aReWrapInsideSetupThatFailsWhileStartingBeginsItsOwnBackoffAsDocumented() {
    TestProbe<BackoffEvent> events = kit.createTestProbe();
    TestProbe<String> probe = kit.createTestProbe();
    BackoffPolicy policy = policy(events);
    java.util.concurrent.atomic.AtomicBoolean failOnce =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    BiFunction<Integer, ActorRef<String>, Behavior<Msg>> factory =
        new BiFunction<>() {
          @Override
          public Behavior<Msg> apply(Integer n, ActorRef<String> p) {
            BiFunction<Integer, ActorRef<String>, Behavior<Msg>> self = this;
            return Behaviors.setup(
                outer ->
                    BackoffSupervisor.wrap(
                        Behaviors.setup(
                            ctx -> {
                              if (n == 1 && failOnce.getAndSet(false)) {
                                throw new Boom();
                              }
                              p.tell("started:" + n);
                              return receive(n, p, self);
                            }),
                        policy));
          }
        };
    ActorRef<Msg> actor = kit.spawn(factory.apply(0, probe.ref()));
    probe.expectMessage("started:0");
    actor.tell(Fail.INSTANCE);
    expectScheduled(events, 1, 100);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started:0");
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    actor.tell(Inc.INSTANCE); // the new supervisor's own start fails: it counts from 1
    expectScheduled(events, 1, 100);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started:1");
    assertInstanceOf(BackoffEvent.Restarted.class, events.receiveMessage());
    assertEquals(new Depth(1, 1), report(actor));
    kit.time()
        .timePasses(
            Duration.ofSeconds(5)); // one reset: the new supervisor's, after its own attempt 1
    assertEquals(
        1, assertInstanceOf(BackoffEvent.BackoffReset.class, events.receiveMessage()).attempt());
    events.expectNoMessage(Duration.ofMillis(200));
  }

  /**
   * Under {@code withRestartOnStop} and a final stop message, a child whose every message returns
   * {@code setup(ctx -> wrap(itself, policy))}: "stop" stops it, anything else is echoed as "got:m".
   * Each message starts a new layer that takes over from the old one.
   */
  static Behavior<String> reWrappingOnEveryMessage(TestProbe<String> probe, BackoffPolicy policy) {
    return Behaviors.receive(String.class)
        .onMessageEquals("stop", Behaviors::stopped)
        .onMessage(
            String.class,
            m -> {
              probe.ref().tell("got:" + m);
              return Behaviors.setup(
                  ctx -> BackoffSupervisor.wrap(reWrappingOnEveryMessage(probe, policy), policy));
            })
        .build();
  }

  @Test
  void aLayerThatTakesOverKeepsWhetherAFinalStopMessageWasSeen_andSeesNoneThatWasNot() {
    for (boolean finalSeen : new boolean[] {false, true}) {
      TestProbe<String> probe = kit.createTestProbe();
      TestProbe<BackoffEvent> events = kit.createTestProbe();
      BackoffPolicy policy =
          BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
              .withJitter(Jitter.none())
              .withRestartOnStop(true)
              .withFinalStopMessage(m -> m.equals("final"))
              .withListener(events.ref()::tell);
      ActorRef<String> actor =
          kit.spawn(BackoffSupervisor.wrap(reWrappingOnEveryMessage(probe, policy), policy));
      String first = finalSeen ? "final" : "other";
      actor.tell(first); // seen by the first layer; the layer its answer starts takes over
      probe.expectMessage("got:" + first);
      actor.tell("stop");
      if (finalSeen) {
        probe.expectTerminated(actor); // the stop after the final stop message is final
        events.expectNoMessage(Duration.ofMillis(100));
      } else {
        BackoffEvent.RestartScheduled scheduled =
            events.expectMessageClass(BackoffEvent.RestartScheduled.class);
        assertTrue(scheduled.afterStop(), "no final stop message seen: restarted");
        kit.testKit().stop(actor);
      }
    }
  }
}
