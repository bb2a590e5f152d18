package dev.supervision.backoff.stash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.Jitter;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.actor.Dropped;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two of Pekko's options that {@code wrap} lacked: {@code withStopChildren(false)} keeps the children
 * across a restart and the restart does not wait for them; a policy without a stash capacity takes
 * the actor system's {@code pekko.actor.typed.restart-stash-capacity} (before, a hard 1000), and
 * {@code withStashCapacity} still wins.
 */
final class KeptChildrenAndTheSystemsStashCapacityTest {

  @RegisterExtension
  static final BackoffTestKit kit =
      BackoffTestKit.create(
          ConfigFactory.parseString("pekko.actor.typed.restart-stash-capacity = 3"));

  static final class Boom extends RuntimeException {
    Boom() {
      super("boom", null, false, false);
    }
  }

  static final BackoffPolicy POLICY =
      BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
          .withJitter(Jitter.none())
          .withResetAfter(Duration.ofHours(1))
          .withLoggingEnabled(false);

  @Test
  void withStopChildrenFalseTheChildSurvivesAndTheRestartDoesNotWaitForIt() {
    TestProbe<String> probe = kit.createTestProbe();
    AtomicInteger incarnation = new AtomicInteger();
    Behavior<String> kid =
        Behaviors.receive(String.class)
            .onMessage(
                String.class,
                m -> {
                  probe.ref().tell("kid:" + m);
                  return Behaviors.same();
                })
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
              if (ctx.getChild("kid").isPresent()) {
                probe.ref().tell("started-" + n + " with the kept kid");
              } else {
                ctx.spawn(kid, "kid");
                probe.ref().tell("started-" + n + " with a new kid");
              }
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "fail",
                      () -> {
                        throw new Boom();
                      })
                  .onMessage(
                      String.class,
                      m -> {
                        @SuppressWarnings("unchecked")
                        ActorRef<String> child =
                            (ActorRef<String>) (ActorRef<?>) ctx.getChild("kid").get();
                        child.tell(m);
                        return Behaviors.same();
                      })
                  .build();
            });
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(parent, POLICY.withStopChildren(false)));
    probe.expectMessage("started-1 with a new kid");
    actor.tell("fail");
    kit.time()
        .timePasses(
            Duration.ofMillis(
                100)); // the kid never terminates: a restart that waited would not come
    probe.expectMessage("started-2 with the kept kid");
    actor.tell("hello");
    probe.expectMessage("kid:hello");
  }

  /** A probe subscribed to Dropped before this returns (the typed Subscribe message is asynchronous). */
  static TestProbe<Dropped> droppedProbe() {
    TestProbe<Dropped> probe = kit.createTestProbe();
    Adapter.toClassic(kit.system())
        .getEventStream()
        .subscribe(Adapter.toClassic(probe.ref()), Dropped.class);
    return probe;
  }

  /** Fails, sends 1..5 during the backoff, restarts: returns what was replayed and what was dropped. */
  private static void stashDuringBackoff(BackoffPolicy policy, int kept) {
    TestProbe<String> probe = kit.createTestProbe();
    TestProbe<Dropped> dropped = droppedProbe();
    Behavior<String> child =
        Behaviors.setup(
            ctx -> {
              probe.ref().tell("started");
              return Behaviors.receive(String.class)
                  .onMessageEquals(
                      "fail",
                      () -> {
                        throw new Boom();
                      })
                  .onMessage(
                      String.class,
                      m -> {
                        probe.ref().tell("got:" + m);
                        return Behaviors.same();
                      })
                  .build();
            });
    ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy));
    probe.expectMessage("started");
    actor.tell("fail");
    for (int i = 1; i <= 5; i++) {
      actor.tell(String.valueOf(i));
    }
    List<Object> drops =
        IntStream.range(kept, 5)
            .mapToObj(i -> dropped.receiveMessage().message())
            .collect(Collectors.toList());
    assertEquals(
        IntStream.rangeClosed(kept + 1, 5).mapToObj(String::valueOf).collect(Collectors.toList()),
        drops);
    kit.time().timePasses(Duration.ofMillis(100));
    probe.expectMessage("started");
    for (int i = 1; i <= kept; i++) {
      probe.expectMessage("got:" + i);
    }
    dropped.expectNoMessage(Duration.ofMillis(100));
    Adapter.toClassic(kit.system()).getEventStream().unsubscribe(Adapter.toClassic(dropped.ref()));
  }

  @Test
  void aPolicyWithoutAStashCapacityTakesTheSystemsRestartStashCapacity() {
    stashDuringBackoff(POLICY, 3);
  }

  @Test
  void thePolicysStashCapacityWinsOverTheSystems() {
    stashDuringBackoff(POLICY.withStashCapacity(4), 4);
  }
}
