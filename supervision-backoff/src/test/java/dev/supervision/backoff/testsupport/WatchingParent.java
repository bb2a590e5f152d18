package dev.supervision.backoff.testsupport;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A parent that spawns and watches a child, forwards every message to it, and tells a probe how
 * the child ended: "terminated" for a plain stop, "child-failed" for a failure.
 */
public final class WatchingParent {

  private WatchingParent() {}

  /**
   * The parent's behavior.
   *
   * @param child the child's behavior (a supervised actor, say)
   * @param name the child's name
   * @param saw where the parent tells how the child ended
   * @return the behavior
   */
  public static Behavior<String> of(Behavior<String> child, String name, ActorRef<String> saw) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<String> kid = ctx.spawn(child, name);
          ctx.watch(kid);
          return Behaviors.receive(String.class)
              .onMessage(
                  String.class,
                  m -> {
                    kid.tell(m);
                    return Behaviors.same();
                  })
              .onSignal(
                  Terminated.class,
                  t -> {
                    saw.tell(t instanceof ChildFailed ? "child-failed" : "terminated");
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
