package dev.supervision.backoff.testkit;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** A behavior for the kit's tests: "fail" throws, "fatal" throws a permanent failure, "quit" stops, anything else is echoed. */
final class Child {

  private Child() {}

  /** Thrown on "fail". */
  static final class Boom extends RuntimeException {
    Boom() {
      super("boom", null, false, false);
    }
  }

  /** Thrown on "fatal"; policies in the tests stop on it. */
  static final class Permanent extends RuntimeException {
    Permanent() {
      super("permanent", null, false, false);
    }
  }

  static Behavior<String> create(ActorRef<String> echo) {
    return Behaviors.setup(
        ctx ->
            Behaviors.receiveMessage(
                m -> {
                  switch (m) {
                    case "fail" -> throw new Boom();
                    case "fatal" -> throw new Permanent();
                    case "quit" -> {
                      return Behaviors.stopped();
                    }
                    default -> echo.tell(m);
                  }
                  return Behaviors.same();
                }));
  }
}
