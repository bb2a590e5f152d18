package dev.supervision.backoff.testsupport;

import dev.supervision.backoff.RetryAfter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A child behavior for tests that reports its life cycle to a probe: the shared fixture of the
 * core's actor tests.
 */
public final class TestChild {

  private TestChild() {}

  /** What the child throws on the message "fail" and, while it fails to start, in its setup. */
  public static final class Boom extends RuntimeException {
    /**
     * A failure without a stack trace.
     *
     * @param message the message
     */
    public Boom(String message) {
      super(message, null, false, false);
    }
  }

  /** A failure that carries a Retry-After hint; thrown on "retry-after:&lt;ISO duration&gt;". */
  public static final class TooManyRequests extends RuntimeException implements RetryAfter {
    private final Duration retryAfter;

    /**
     * A failure that asks for {@code retryAfter}.
     *
     * @param retryAfter the hint
     */
    public TooManyRequests(Duration retryAfter) {
      super("429 retry after " + retryAfter, null, false, false);
      this.retryAfter = retryAfter;
    }

    @Override
    public Duration retryAfter() {
      return retryAfter;
    }
  }

  /**
   * A child that tells {@code probe} "started" on every start, "got:m" for every message {@code m}
   * it handles, and "preRestart" and "postStop" on those signals. The message "fail" throws {@link
   * Boom}; "illegal" throws an {@code IllegalArgumentException("permanent")}; "stop" returns {@code
   * stopped}; "retry-after:PT5S" (any ISO-8601 duration) throws {@link TooManyRequests} with that
   * hint. Every other message is only reported.
   *
   * @param probe where the child reports
   * @return the child's behavior
   */
  public static Behavior<String> create(ActorRef<String> probe) {
    return create(probe, new AtomicInteger(0));
  }

  /**
   * As {@link #create(ActorRef)}, but its setup tells {@code probe} "setup-failed" and throws
   * {@link Boom} while {@code failStarts} is positive (each start takes one off).
   *
   * @param probe where the child reports
   * @param failStarts how many starts fail
   * @return the child's behavior
   */
  public static Behavior<String> create(ActorRef<String> probe, AtomicInteger failStarts) {
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
