package dev.supervision.backoff.testsupport;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The cases that the actor tests' own children are built from, for a child that {@link TestChild}
 * does not fit (one that spawns kids, starts timers or watches): start with {@link #failing()}, add
 * cases with {@link #reporting} and {@link #telling}, then {@code build()}.
 */
public final class Receives {

  private Receives() {}

  /**
   * A receive whose first case throws {@link TestChild.Boom} on the message "fail"; every other
   * message is unhandled until a case is added.
   *
   * @return the builder
   */
  public static BehaviorBuilder<String> failing() {
    return Behaviors.receive(String.class)
        .onMessageEquals(
            "fail",
            () -> {
              throw new TestChild.Boom("fail");
            });
  }

  /**
   * Adds a case that tells {@code probe} {@code prefix + m} for every message {@code m} that no
   * earlier case handled, and keeps the behavior.
   *
   * @param receive the cases so far
   * @param prefix what the probe is told before the message, "got:" say
   * @param probe where the child reports
   * @return the builder
   */
  public static BehaviorBuilder<String> reporting(
      BehaviorBuilder<String> receive, String prefix, ActorRef<String> probe) {
    return receive.onMessage(
        String.class,
        m -> {
          probe.tell(prefix + m);
          return Behaviors.same();
        });
  }

  /**
   * Adds a case that tells {@code probe} {@code message} on the signal and keeps the behavior.
   *
   * @param receive the cases so far
   * @param signal the signal's class, {@code PostStop.class} say
   * @param probe where the child reports
   * @param message what the probe is told
   * @param <S> the signal's type
   * @return the builder
   */
  public static <S extends Signal> BehaviorBuilder<String> telling(
      BehaviorBuilder<String> receive, Class<S> signal, ActorRef<String> probe, String message) {
    return receive.onSignal(
        signal,
        s -> {
          probe.tell(message);
          return Behaviors.same();
        });
  }
}
