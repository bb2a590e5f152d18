package dev.supervision.backoff;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** A child behavior for tests that reports its life cycle to a probe. */
final class TestChild {

  private TestChild() {}

  /** Throws this on the message "fail". */
  static final class Boom extends RuntimeException {
    Boom(String message) {
      super(message, null, false, false);
    }
  }

  /** A failure that carries a Retry-After hint. */
  static final class TooManyRequests extends RuntimeException implements RetryAfter {
    private final Duration retryAfter;

    TooManyRequests(Duration retryAfter) {
      super("429 retry after " + retryAfter, null, false, false);
      this.retryAfter = retryAfter;
    }

    @Override
    public Duration retryAfter() {
      return retryAfter;
    }
  }

  /**
   * "started" on every start, "got:m" per message, "preRestart"/"postStop" on those signals. The
   * message "fail" throws {@link Boom}; "fatal-arg" throws IllegalArgumentException; anything
   * starting with "throw:" throws the matching failure.
   */
  static Behavior<String> create(ActorRef<String> probe) {
    return create(probe, new AtomicInteger(0));
  }

  /** As {@link #create(ActorRef)}, but setup fails while {@code failStarts} is positive. */
  static Behavior<String> create(ActorRef<String> probe, AtomicInteger failStarts) {
    return Behaviors.setup(
        ctx -> {
          if (failStarts.getAndDecrement() > 0) {
            probe.tell("setup-failed");
            throw new Boom("setup failed");
          }
          probe.tell("started");
          return Behaviors.receive(String.class)
              .onMessage(
                  String.class,
                  m -> {
                    switch (m) {
                      case "fail":
                        throw new Boom("fail");
                      case "illegal":
                        throw new IllegalArgumentException("permanent");
                      case "stop":
                        return Behaviors.stopped();
                      default:
                        if (m.startsWith("retry-after:")) {
                          throw new TooManyRequests(
                              Duration.parse(m.substring("retry-after:".length())));
                        }
                        probe.tell("got:" + m);
                        return Behaviors.same();
                    }
                  })
              .onSignal(
                  PreRestart.class,
                  s -> {
                    probe.tell("preRestart");
                    return Behaviors.same();
                  })
              .onSignal(
                  PostStop.class,
                  s -> {
                    probe.tell("postStop");
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
