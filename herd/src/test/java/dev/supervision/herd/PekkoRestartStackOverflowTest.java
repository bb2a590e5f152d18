package dev.supervision.herd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * Pekko's own behaviour, not this library's: under {@code SupervisorStrategy.restart()}, a {@code
 * Behaviors.setup} that keeps failing after a restart is restarted again from inside the failed
 * restart, recursively, until the thread's stack overflows (see
 * docs/upstream-restart-stackoverflow.md). The reproduction runs in an ActorSystem of its own, with
 * {@code jvm-exit-on-fatal-error = off} so that the overflow ends that system and not the JVM, and
 * its standard error captured. If Pekko fixes the recursion, this test fails and the document must
 * change.
 */
final class PekkoRestartStackOverflowTest {

  private static final AtomicInteger SETUPS = new AtomicInteger();
  private static final AtomicInteger FIRST_DEPTH = new AtomicInteger();
  private static final AtomicInteger MAX_DEPTH = new AtomicInteger();

  /** Starts once; every later start (every restart) fails, as a connection to a resource that is down. */
  static Behavior<String> failingAfterFirstStart() {
    return Behaviors.setup(
        ctx -> {
          int n = SETUPS.incrementAndGet();
          if (n % 64 == 2) { // sample the stack depth now and then: walking it is O(depth)
            int depth = StackWalker.getInstance().walk(frames -> (int) frames.count());
            FIRST_DEPTH.compareAndSet(0, depth);
            MAX_DEPTH.accumulateAndGet(depth, Math::max);
          }
          if (n > 1) {
            throw new IllegalStateException("the resource is down");
          }
          return Behaviors.receiveMessage(
              msg -> {
                throw new IllegalStateException("the resource went down");
              });
        });
  }

  @Test
  void restart_ofASetupThatKeepsFailing_recursesUntilTheStackOverflows() throws Exception {
    PrintStream systemErr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    ActorSystem<String> system = null;
    try {
      Behavior<String> guardian =
          Behaviors.setup(
              ctx -> {
                var child =
                    ctx.spawn(
                        Behaviors.supervise(failingAfterFirstStart())
                            .onFailure(SupervisorStrategy.restart().withLoggingEnabled(false)),
                        "cell");
                return Behaviors.receiveMessage(
                    msg -> {
                      child.tell(msg);
                      return Behaviors.same();
                    });
              });
      system =
          ActorSystem.create(
              guardian,
              "restart-recursion",
              ConfigFactory.parseString(
                      "pekko.jvm-exit-on-fatal-error = off\npekko.loglevel = ERROR\n"
                          + "pekko.stdout-loglevel = OFF")
                  .withFallback(ConfigFactory.load()));
      system.tell("fail once");
      // the overflow is fatal: Pekko shuts the ActorSystem down on its own
      // (its termination can take long while the dispatcher still unwinds, so the test waits for
      // the shutdown to begin)
      CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (shutdown.getShutdownReason().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    } finally {
      if (system != null) {
        system.terminate();
        try { // the recursing thread may take long to let go; what it prints meanwhile stays
          // captured
          system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
          RealHerd.awaitThreads(system.name(), 10_000);
        } catch (java.util.concurrent.TimeoutException e) {
          // not this test's subject
        }
      }
      System.setErr(systemErr);
    }
    String log = err.toString(StandardCharsets.UTF_8);
    assertTrue(
        log.contains("Uncaught error from thread") && log.contains("java.lang.StackOverflowError"),
        log.length() > 2000 ? log.substring(0, 2000) : log);
    // hundreds of restarts on one stack (how many depends on the stack size and on how much of the
    // code the JIT has compiled yet: 854 to 1,154 in the runs measured with 1 MB stacks)
    assertTrue(SETUPS.get() > 200, "setups before the overflow: " + SETUPS.get());
    double framesPerRestart =
        (MAX_DEPTH.get() - FIRST_DEPTH.get()) / (double) Math.max(1, SETUPS.get() - 66);
    // for the write-up: printed, not asserted (the numbers depend on the JVM's stack size)
    systemErr.printf(
        "Pekko restart() recursion: %,d setups before StackOverflowError; stack %,d frames deep at"
            + " the deepest sample, about %.1f frames per restart%n",
        SETUPS.get(), MAX_DEPTH.get(), framesPerRestart);
    assertTrue(
        MAX_DEPTH.get() > 10 * FIRST_DEPTH.get(),
        "the stack grows with every restart: " + FIRST_DEPTH.get() + " -> " + MAX_DEPTH.get());
  }
}
