package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream whose policy names a restart budget asks that budget's gate for a permit once its delay
 * has passed, in the same queue as the actors of the budget: one permit a minute is one restart a
 * minute, whoever restarts.
 */
final class StreamsAndActorsShareABudgetTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  private static int waiting(String budget) {
    return Probes.await(RestartBudgets.get(kit.system()).waiting(budget));
  }

  @Test
  void aStreamAndAnActorOfOneFixedBudgetShareItsPermits() {
    RestartBudget budget = RestartBudget.of("shared-db", 1, Duration.ofSeconds(60));
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact()
            .withResetAfter(Duration.ofMinutes(10))
            .withBudget(budget)
            .withListener(probe.listener());
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.<String>receiveMessage(
                    m -> {
                      throw new Boom(m);
                    }),
                policy));
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out =
        BackoffSource.withBackoff("feed", policy, inner::create)
            .runWith(Sink.queue(), kit.system());

    // the actor takes the bucket's only permit
    actor.tell("fail");
    probe.expectRestartScheduled(actor);
    probe.advanceToRestart(kit.time());
    probe.expectWaitingForPermit(actor);
    probe.expectPermitGranted(actor);
    probe.expectRestarted(actor);

    // so the stream waits in the same queue until the next permit, a minute later
    inner.fail(new Boom("db down"));
    BackoffEvent.RestartScheduled scheduled = probe.expectRestartScheduled();
    ActorRef<?> stream = scheduled.actor();
    probe.advanceToRestart(kit.time());
    assertEquals("shared-db", probe.expectWaitingForPermit(stream).budget());
    probe.expectNoEvent(stream, Duration.ofMillis(300));
    assertEquals(1, waiting("shared-db"));
    kit.time().timePasses(Duration.ofSeconds(60));
    probe.expectPermitGranted(stream);
    probe.expectRestarted(stream);

    // and now the actor waits for the stream's minute to pass
    actor.tell("fail again");
    probe.expectRestartScheduled(actor);
    probe.advanceToRestart(kit.time());
    probe.expectWaitingForPermit(actor);
    probe.expectNoEvent(actor, Duration.ofMillis(300));
    kit.time().timePasses(Duration.ofSeconds(60));
    probe.expectPermitGranted(actor);
    out.cancel();
    kit.testKit().stop(actor);
  }

  /** A stream that ends while it waits leaves the queue, so the permit goes to the next waiter. */
  @Test
  void aStreamCancelledWhileWaitingGivesUpItsPlace() {
    RestartBudget budget = RestartBudget.of("queue-db", 1, Duration.ofSeconds(60));
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact()
            .withResetAfter(Duration.ofMinutes(10))
            .withBudget(budget)
            .withListener(probe.listener());
    Controlled first = new Controlled();
    Controlled second = new Controlled();
    Controlled third = new Controlled();
    SinkQueueWithCancel<String> a =
        BackoffSource.withBackoff("a", policy, first::create).runWith(Sink.queue(), kit.system());
    SinkQueueWithCancel<String> b =
        BackoffSource.withBackoff("b", policy, second::create).runWith(Sink.queue(), kit.system());
    SinkQueueWithCancel<String> c =
        BackoffSource.withBackoff("c", policy, third::create).runWith(Sink.queue(), kit.system());

    first.fail(new Boom("a"));
    ActorRef<?> streamA = probe.expectRestartScheduled().actor();
    probe.advanceToRestart(kit.time());
    probe.expectWaitingForPermit(streamA);
    probe.expectPermitGranted(streamA); // the bucket's first permit
    probe.expectRestarted(streamA);

    second.fail(new Boom("b"));
    ActorRef<?> streamB = probe.expectRestartScheduled().actor();
    probe.advanceToRestart(kit.time());
    probe.expectWaitingForPermit(streamB);
    assertEquals(1, waiting("queue-db"));
    third.fail(new Boom("c"));
    ActorRef<?> streamC = probe.expectRestartScheduled().actor();
    probe.advanceToRestart(kit.time());
    probe.expectWaitingForPermit(streamC);
    assertEquals(2, waiting("queue-db")); // c waits behind b

    b.cancel(); // b leaves the queue
    probe.expectEvent(BackoffEvent.StoppedDuringBackoff.class);
    kit.time().timePasses(Duration.ofSeconds(60));
    probe.expectPermitGranted(streamC);
    probe.expectRestarted(streamC);
    a.cancel();
    c.cancel();
  }

  /** A stream of an adaptive budget waits for its permits like an actor, and reports failures. */
  @Test
  void aStreamOfAnAdaptiveBudgetRestartsWithItsPermits() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy =
        Probes.exact()
            .withBudget(RestartBudget.adaptive("adaptive-db"))
            .withListener(probe.listener());
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out =
        BackoffSource.withBackoff("adaptive", policy, inner::create)
            .runWith(Sink.queue(), kit.system());
    for (int i = 0; i < 2; i++) {
      inner.fail(new Boom("down"));
      probe.expectRestartScheduled();
      probe.advanceToRestart(kit.time());
      assertEquals("adaptive-db", probe.expectWaitingForPermit().budget());
      kit.time().timePasses(Duration.ofSeconds(1));
      probe.expectPermitGranted();
      probe.expectRestarted();
    }
    out.cancel();
  }
}
