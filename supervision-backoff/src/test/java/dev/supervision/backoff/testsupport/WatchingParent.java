package dev.supervision.backoff.testsupport;

import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A parent that spawns and watches a child, forwards every message to it, and tells a probe how
 * the child ended: "terminated" for a plain stop, "child-failed" for a failure ({@link #of}), or
 * the child's ref and the failure's cause ({@link #reporting}).
 */
public final class WatchingParent {

  private WatchingParent() {}

  /**
   * How the watched child ended.
   *
   * @param child the child
   * @param cause the cause of its failure ({@code ChildFailed}), or null for a plain stop
   */
  public record Ended(ActorRef<?> child, Throwable cause) {

    /**
     * Whether the child failed.
     *
     * @return whether the parent saw {@code ChildFailed}
     */
    public boolean failed() {
      return cause != null;
    }
  }

  /**
   * The parent's behavior.
   *
   * @param child the child's behavior (a supervised actor, say)
   * @param name the child's name
   * @param saw where the parent tells how the child ended
   * @return the behavior
   */
  public static Behavior<String> of(Behavior<String> child, String name, ActorRef<String> saw) {
    return parent(
        child,
        name,
        kid -> {},
        t -> saw.tell(t instanceof ChildFailed ? "child-failed" : "terminated"));
  }

  /**
   * The parent's behavior, telling {@code spawned} the child's ref once it is spawned (so that a
   * test can look at the child's own events and lines) and {@code ended} how it ended.
   *
   * @param child the child's behavior (a supervised actor, say)
   * @param name the child's name
   * @param spawned where the parent tells the child's ref, from its setup
   * @param ended where the parent tells how the child ended
   * @return the behavior
   */
  public static Behavior<String> reporting(
      Behavior<String> child,
      String name,
      ActorRef<ActorRef<String>> spawned,
      ActorRef<Ended> ended) {
    return parent(
        child,
        name,
        spawned::tell,
        t -> ended.tell(new Ended(t.getRef(), t instanceof ChildFailed f ? f.getCause() : null)));
  }

  private static Behavior<String> parent(
      Behavior<String> child,
      String name,
      Consumer<ActorRef<String>> onSpawn,
      Consumer<Terminated> onEnd) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<String> kid = ctx.spawn(child, name);
          ctx.watch(kid);
          onSpawn.accept(kid);
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
                    onEnd.accept(t);
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
