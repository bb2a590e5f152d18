package dev.supervision.bench;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongConsumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The actor under test in the throughput and memory benchmarks: it counts {@link Inc} messages,
 * answers a {@link Flush} with the count, and blocks on a {@link Hold}. The same inner behavior is used bare, under Pekko's
 * supervisor and under {@link BackoffSupervisor#wrap}, so any difference is the supervisor's.
 */
public final class Counter {

  private Counter() {}

  /** The counter's protocol. */
  public interface Msg {}

  /** Adds one to the count. A singleton, so sending it allocates nothing. */
  enum Inc implements Msg {
    /** The only instance. */
    INSTANCE
  }

  /**
   * Asks for the count so far.
   *
   * @param reply called on the actor's thread with the count
   */
  record Flush(LongConsumer reply) implements Msg {}

  /**
   * Blocks the actor's thread until {@code release} opens, after opening {@code holding}: lets a
   * benchmark fill the mailbox while the actor is known to be busy (benchmark use only; an actor
   * must never block otherwise).
   *
   * @param holding opened when the actor has started to wait
   * @param release the actor waits for this
   */
  record Hold(CountDownLatch holding, CountDownLatch release) implements Msg {}

  /** Backoff settings shared by both supervisors: 100 ms to 10 s, Pekko's usual random factor. */
  static final Duration MIN = Duration.ofMillis(100);

  static final Duration MAX = Duration.ofSeconds(10);

  static final double PEKKO_RANDOM_FACTOR = 0.2;

  /** The ways to run the counter: three compared, two for reference. */
  public enum Kind {
    /** {@code Behaviors.setup} + {@code Behaviors.receive}, no supervision. */
    BARE {
      @Override
      Behavior<Msg> behavior() {
        return counting();
      }
    },
    /**
     * Exactly BARE under another name: a negative control. Whatever separates it from BARE in a
     * benchmark is that benchmark's noise, not a cost.
     */
    BARE_AGAIN {
      @Override
      Behavior<Msg> behavior() {
        return counting();
      }
    },
    /** The counter under {@code Behaviors.supervise(..).onFailure(restartWithBackoff(..))}. */
    PEKKO {
      @Override
      Behavior<Msg> behavior() {
        return Behaviors.supervise(counting())
            .onFailure(SupervisorStrategy.restartWithBackoff(MIN, MAX, PEKKO_RANDOM_FACTOR));
      }
    },
    /** The counter under {@code BackoffSupervisor.wrap(.., BackoffPolicy.exponential(..))}. */
    WRAP {
      @Override
      Behavior<Msg> behavior() {
        return BackoffSupervisor.wrap(counting(), BackoffPolicy.exponential(MIN, MAX));
      }
    },
    /**
     * Not a supervisor: the counter under a pass-through {@code Behaviors.intercept}, the mechanism
     * Pekko's supervisor is built on (and ours was, until issue 5). Shows how much of a supervisor's
     * cost is Pekko's interceptor machinery.
     */
    INTERCEPT {
      @Override
      Behavior<Msg> behavior() {
        return Behaviors.intercept(PassThrough::new, counting());
      }
    };

    /**
     * A fresh behavior of this kind (each spawn gets its own supervisor state anyway).
     *
     * @return the behavior
     */
    abstract Behavior<Msg> behavior();
  }

  /** An interceptor that does nothing but pass messages and signals on. */
  static final class PassThrough extends BehaviorInterceptor<Msg, Msg> {
    PassThrough() {
      super(Msg.class);
    }

    @Override
    public Behavior<Msg> aroundReceive(
        TypedActorContext<Msg> ctx, Msg msg, ReceiveTarget<Msg> target) {
      return target.apply(ctx, msg);
    }
  }

  /** The bare counting behavior, state in a one-element array captured by the lambda. */
  static Behavior<Msg> counting() {
    return Behaviors.setup(
        ctx -> {
          long[] count = new long[1];
          return Behaviors.receive(
              (c, msg) -> {
                if (msg == Inc.INSTANCE) {
                  count[0]++;
                } else if (msg instanceof Flush) {
                  ((Flush) msg).reply().accept(count[0]);
                } else if (msg instanceof Hold) {
                  Hold hold = (Hold) msg;
                  hold.holding().countDown();
                  try {
                    hold.release().await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
                return Behaviors.same();
              });
        });
  }
}
