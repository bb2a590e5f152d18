package dev.supervision.backoff.testsupport;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;

/**
 * A supervised actor under test, the shared set-up of the actor tests: the actor, the probe its
 * child reports to, and the probe of its events.
 *
 * @param actor the supervised actor
 * @param probe where its child reports
 * @param events its events
 */
public record Supervised(ActorRef<String> actor, TestProbe<String> probe, BackoffProbe events) {

  /**
   * Spawns {@code BackoffSupervisor.wrap(child(probe), policy(events))} with a fresh probe and a
   * fresh event probe, and waits for the child to report "started".
   *
   * @param kit the test kit
   * @param child the child, given the probe it reports to
   * @param policy the policy, given the probe its listener reports to
   * @return the actor and its probes
   */
  public static Supervised start(
      BackoffTestKit kit,
      Function<TestProbe<String>, Behavior<String>> child,
      Function<BackoffProbe, BackoffPolicy> policy) {
    TestProbe<String> probe = kit.createTestProbe();
    BackoffProbe events = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(BackoffSupervisor.wrap(child.apply(probe), policy.apply(events)));
    probe.expectMessage("started");
    return new Supervised(actor, probe, events);
  }

  /**
   * Sends the actor a message.
   *
   * @param message the message
   */
  public void tell(String message) {
    actor.tell(message);
  }

  /**
   * Waits for the actor to stop.
   */
  public void expectTerminated() {
    probe.expectTerminated(actor);
  }
}
