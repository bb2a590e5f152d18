package dev.supervision.backoff.parity;

import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.Jitter;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The supervised behavior of the parity tests, written after the shape of the one in Pekko's
 * {@code SupervisionSpec}: a counter that reports its state, spawns and watches on request, throws
 * what it is told to, and reports every signal (optionally blocking in {@code PostStop} or {@code
 * PreRestart} until a latch opens).
 */
final class Target {

  private Target() {}

  /** What the target is told. */
  sealed interface Command {}

  record Ping(int n) implements Command {}

  record Throw(Throwable failure) implements Command {}

  record CreateChild(Behavior<Command> behavior, String name) implements Command {}

  record Watch(ActorRef<?> ref) implements Command {}

  record WatchWith(ActorRef<?> ref, Command message) implements Command {}

  enum Simple implements Command {
    INCREMENT_STATE,
    GET_STATE
  }

  /** What the target reports. */
  sealed interface Event {}

  record Pong(int n) implements Event {}

  record ReceivedSignal(Signal signal) implements Event {}

  /** The counter and the children by name. */
  record State(int n, Map<String, ActorRef<Void>> children) implements Event {
    static State of(int n) {
      return new State(n, Map.of());
    }
  }

  enum Lifecycle implements Event {
    STARTED,
    START_FAILED
  }

  static class Exc1 extends RuntimeException {
    Exc1() {
      this("exc-1");
    }

    Exc1(String message) {
      super(message, null, false, false);
    }
  }

  static final class Exc2 extends Exc1 {
    Exc2() {
      super("exc-2");
    }
  }

  static final class Exc3 extends RuntimeException {
    Exc3() {
      super("exc-3", null, false, false);
    }
  }

  static Behavior<Command> target(ActorRef<Event> monitor) {
    return target(monitor, 0, null, null);
  }

  static Behavior<Command> target(
      ActorRef<Event> monitor, int n, CountDownLatch slowStop, CountDownLatch slowRestart) {
    return Behaviors.setup(
        ctx ->
            Behaviors.receive(Command.class)
                .onMessage(
                    Ping.class,
                    ping -> {
                      monitor.tell(new Pong(ping.n()));
                      return Behaviors.same();
                    })
                .onMessageEquals(
                    Simple.INCREMENT_STATE, () -> target(monitor, n + 1, slowStop, slowRestart))
                .onMessageEquals(
                    Simple.GET_STATE,
                    () -> {
                      Map<String, ActorRef<Void>> children = new TreeMap<>();
                      ctx.getChildren().forEach(c -> children.put(c.path().name(), c));
                      monitor.tell(new State(n, Map.copyOf(children)));
                      return Behaviors.same();
                    })
                .onMessage(
                    CreateChild.class,
                    c -> {
                      ctx.spawn(c.behavior(), c.name());
                      return Behaviors.same();
                    })
                .onMessage(
                    Watch.class,
                    w -> {
                      ctx.watch(w.ref());
                      return Behaviors.same();
                    })
                .onMessage(
                    WatchWith.class,
                    w -> {
                      ctx.watchWith(w.ref(), w.message());
                      return Behaviors.same();
                    })
                .onMessage(
                    Throw.class,
                    t -> {
                      throw Target.<RuntimeException>sneaky(t.failure());
                    })
                .onSignal(
                    Signal.class,
                    signal -> {
                      if (signal == PostStop.instance()) {
                        await(slowStop);
                      } else if (signal == PreRestart.instance()) {
                        await(slowRestart);
                      }
                      monitor.tell(new ReceivedSignal(signal));
                      return Behaviors.same();
                    })
                .build());
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    if (latch != null) {
      latch.await(10, TimeUnit.SECONDS);
    }
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }

  /**
   * The exact counterpart of Pekko's {@code restartWithBackoff(min, max, 0.0)}: this library's
   * {@link Jitter#none()} gives {@code min(max, min * 2^n)}, as Pekko's formula does with a random
   * factor of 0 (this library's default is full jitter instead of Pekko's random factor).
   */
  static BackoffPolicy exactBackoff(Duration min, Duration max) {
    return BackoffPolicy.exponential(min, max).withJitter(Jitter.none());
  }
}
