package dev.supervision.bench;

import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A million supervised cells fail together on a 2-second outage of a shared resource.
 *
 * <p>Each cell is {@code Behaviors.setup} that fails while the resource is down and otherwise
 * handles {@link Work} (failing while the resource is down) and {@link Ping}. The cells live under
 * 1,000 parents of 1,000 cells each. The run:
 *
 * <ol>
 *   <li>spawns every cell and pings it (all started), then takes the heap after GC ("idle");
 *   <li>takes the resource down until 2 s after the last cell has failed, and broadcasts {@code
 *       Work} (every cell fails) and right
 *       after it a {@code Ping}, which reaches each cell during its backoff, so is stashed and must
 *       be replayed after the restart;
 *   <li>records when every cell has failed, when every restart is scheduled (from the supervisor's
 *       {@code RestartScheduled} events; wrap only), when every cell has started again after the
 *       outage, and when every stashed ping has been answered; samples the heap every 5 ms for the
 *       peak (garbage included, so an upper bound);
 *   <li>waits until every cell's backoff has been reset ({@code BackoffReset} events; wrap only; for
 *       Pekko's supervisor, for its reset delay plus 1 s), pings every cell once more, and takes the
 *       heap after GC again: the difference to "idle" is what the storm left behind (timers,
 *       stashes, schedules).
 * </ol>
 *
 * <p>The failure is an exception without a stack trace: filling in a stack is the cost of the
 * user's code, not of the supervisor, and would dominate the figures. Run with {@code -Xmx4g}.
 *
 * <p>Usage: {@code CrashStorm [wrap|pekko, default wrap] [cells, default 1000000]}.
 */
public final class CrashStorm {

  private CrashStorm() {}

  private static final Duration OUTAGE = Duration.ofSeconds(2);
  private static final Duration MIN = Duration.ofMillis(500);
  private static final Duration MAX = Duration.ofSeconds(5);
  private static final Duration RESET_AFTER = Duration.ofSeconds(3);
  private static final int PER_PARENT = 1_000;

  /** A cell's protocol. */
  interface Cmd {}

  /** Uses the resource: fails while it is down. */
  enum Work implements Cmd {
    /** The only instance. */
    INSTANCE
  }

  /**
   * Answers by running {@code reply}.
   *
   * @param reply run on the cell's thread
   */
  record Ping(Runnable reply) implements Cmd {}

  /** A parent's protocol: forward a command to every child. */
  record Broadcast(Cmd cmd) {}

  /** The resource is down. No stack trace (see the class comment). */
  static final class Outage extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Outage() {
      super("resource down", null, false, false);
    }
  }

  /** The shared resource is down until this {@code System.nanoTime()} value (wraps safely). */
  private static volatile long downUntil = System.nanoTime() - 1;

  private static boolean down() {
    return System.nanoTime() - downUntil < 0;
  }

  /** Counters, each remembering when it reached the number of cells. */
  static final class Milestone {
    private final long target;
    private final AtomicLong count = new AtomicLong();
    private volatile long reachedAt;
    private final Runnable onReached;

    Milestone(long target) {
      this(target, () -> {});
    }

    Milestone(long target, Runnable onReached) {
      this.target = target;
      this.onReached = onReached;
    }

    void hit() {
      if (count.incrementAndGet() == target) {
        reachedAt = System.nanoTime();
        onReached.run();
      }
    }

    long count() {
      return count.get();
    }

    boolean reached() {
      return reachedAt != 0;
    }

    Duration since(long t0) {
      return reached() ? Duration.ofNanos(reachedAt - t0) : null;
    }

    void await(String what, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reached()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              what + ": only " + count() + " of " + target + " after " + timeout);
        }
        Thread.sleep(1);
      }
    }
  }

  private static Behavior<Cmd> cell(
      Milestone failedInWork,
      AtomicLong failedInSetup,
      Milestone startedAfterOutage,
      long[] outageStart) {
    return Behaviors.setup(
        ctx -> {
          if (down()) {
            failedInSetup.incrementAndGet();
            throw new Outage();
          }
          if (outageStart[0] != 0) {
            startedAfterOutage.hit();
          }
          return Behaviors.receive(
              (c, msg) -> {
                if (msg == Work.INSTANCE) {
                  if (down()) {
                    failedInWork.hit();
                    throw new Outage();
                  }
                } else if (msg instanceof Ping) {
                  ((Ping) msg).reply().run();
                }
                return Behaviors.same();
              });
        });
  }

  /**
   * Runs the storm.
   *
   * @param args kind and number of cells
   * @throws Exception if something does not complete in time
   */
  public static void main(String[] args) throws Exception {
    String kind = args.length > 0 ? args[0] : "wrap";
    int cells = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    if (cells % PER_PARENT != 0) {
      throw new IllegalArgumentException(
          "cells must be a multiple of " + PER_PARENT + " but was " + cells);
    }
    boolean wrap =
        switch (kind) {
          case "wrap" -> true;
          case "pekko" -> false;
          default ->
              throw new IllegalArgumentException("kind must be wrap or pekko but was " + kind);
        };
    // the outage ends 2 s after the last cell has failed (delivering the broadcast to a million
    // cells takes longer than 2 s on 2 cores, so a fixed window would let late cells through)
    Milestone failedInWork =
        new Milestone(cells, () -> downUntil = System.nanoTime() + OUTAGE.toNanos());
    AtomicLong failedInSetup = new AtomicLong();
    Milestone startedAfterOutage = new Milestone(cells);
    Milestone firstRestartScheduled = new Milestone(cells);
    AtomicLong restartsScheduled = new AtomicLong();
    Milestone restarted = new Milestone(cells);
    Milestone resets = new Milestone(cells);
    long[] outageStart = new long[1];

    BackoffPolicy policy =
        BackoffPolicy.exponential(MIN, MAX)
            .withResetAfter(RESET_AFTER)
            .withLoggingEnabled(false)
            .withListener(
                event -> {
                  if (event instanceof BackoffEvent.RestartScheduled scheduled) {
                    restartsScheduled.incrementAndGet();
                    if (scheduled.attempt() == 1) {
                      firstRestartScheduled.hit();
                    }
                  } else if (event instanceof BackoffEvent.Restarted) {
                    restarted.hit();
                  } else if (event instanceof BackoffEvent.BackoffReset) {
                    resets.hit();
                  }
                });
    Behavior<Cmd> inner = cell(failedInWork, failedInSetup, startedAfterOutage, outageStart);
    Behavior<Cmd> supervised =
        wrap
            ? BackoffSupervisor.wrap(inner, policy)
            : Behaviors.supervise(inner)
                .onFailure(
                    SupervisorStrategy.restartWithBackoff(MIN, MAX, 0.2)
                        .withResetBackoffAfter(RESET_AFTER)
                        .withLoggingEnabled(false));

    System.out.printf(
        Locale.ROOT,
        "Crash storm: %,d %s cells (%d parents x %d), outage %s, backoff %s..%s, reset after %s, max heap %s%n",
        cells,
        kind,
        cells / PER_PARENT,
        PER_PARENT,
        Pekko.seconds(OUTAGE),
        Pekko.seconds(MIN),
        Pekko.seconds(MAX),
        Pekko.seconds(RESET_AFTER),
        Heap.mib(Runtime.getRuntime().maxMemory()));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "storm", Pekko.config());
    try {
      long baseline = Heap.usedAfterGc();
      long t = System.nanoTime();
      List<ActorRef<Broadcast>> parents = spawn(system, supervised, cells);
      ping(parents, cells, "initial ping");
      Duration spawnTime = Duration.ofNanos(System.nanoTime() - t);
      long idle = Heap.usedAfterGc();
      System.out.printf(
          Locale.ROOT,
          "spawned and pinged in %s; heap after GC %s (%.0f bytes/cell over the empty system)%n",
          Pekko.seconds(spawnTime),
          Heap.mib(idle),
          (idle - baseline) / (double) cells);

      CountDownLatch stashedPings = new CountDownLatch(cells);
      Ping stashed = new Ping(stashedPings::countDown);
      long peak;
      long t0;
      try (Heap.PeakSampler sampler = new Heap.PeakSampler()) {
        t0 = System.nanoTime();
        downUntil = t0 + Duration.ofDays(1).toNanos(); // until 2 s after the last failure
        outageStart[0] = t0;
        for (ActorRef<Broadcast> parent : parents) {
          parent.tell(new Broadcast(Work.INSTANCE));
          parent.tell(new Broadcast(stashed));
        }
        Duration broadcast = Duration.ofNanos(System.nanoTime() - t0);
        Duration timeout = Duration.ofMinutes(5);
        failedInWork.await("cells failed", timeout);
        if (wrap) {
          firstRestartScheduled.await("first restarts scheduled", timeout);
        }
        startedAfterOutage.await("cells started after the outage", timeout);
        if (!stashedPings.await(timeout.toMinutes(), TimeUnit.MINUTES)) {
          throw new IllegalStateException(
              stashedPings.getCount() + " stashed pings were not answered");
        }
        Duration pingsAnswered = Duration.ofNanos(System.nanoTime() - t0);
        if (wrap) {
          restarted.await("restarts", timeout);
          resets.await("backoff resets", timeout);
        } else {
          Thread.sleep(Math.max(0, MAX.plus(RESET_AFTER).plusSeconds(1).toMillis()));
        }
        Duration resetsDone = Duration.ofNanos(System.nanoTime() - t0);
        peak = sampler.peak();
        System.out.printf(
            Locale.ROOT, "broadcast sent in                      %s%n", Pekko.seconds(broadcast));
        System.out.printf(
            Locale.ROOT,
            "all %,d cells failed after         %s%n",
            cells,
            Pekko.seconds(failedInWork.since(t0)));
        if (wrap) {
          System.out.printf(
              Locale.ROOT,
              "all first restarts scheduled after     %s%n",
              Pekko.seconds(firstRestartScheduled.since(t0)));
        }
        System.out.printf(
            Locale.ROOT,
            "outage over after                      %s (2 s after the last failure)%n",
            Pekko.seconds(failedInWork.since(t0).plus(OUTAGE)));
        System.out.printf(
            Locale.ROOT,
            "all cells running again after          %s%n",
            Pekko.seconds(startedAfterOutage.since(t0)));
        System.out.printf(
            Locale.ROOT,
            "all stashed pings answered after       %s%n",
            Pekko.seconds(pingsAnswered));
        System.out.printf(
            Locale.ROOT,
            "failures while starting in the outage  %,d (%.2f per cell)%n",
            failedInSetup.get(),
            failedInSetup.get() / (double) cells);
        if (wrap) {
          System.out.printf(
              Locale.ROOT,
              "restarts scheduled in all              %,d; restarted %,d; reset %,d (all reset after %s)%n",
              restartsScheduled.get(),
              restarted.count(),
              resets.count(),
              Pekko.seconds(resetsDone));
        }
        System.out.printf(
            Locale.ROOT,
            "peak heap in use (sampled every 5 ms)  %s of %s%n",
            Heap.mib(peak),
            Heap.mib(Runtime.getRuntime().maxMemory()));
      }
      ping(parents, cells, "final ping");
      long after = Heap.usedAfterGc();
      System.out.printf(Locale.ROOT, "all %,d cells answer a new ping: yes%n", cells);
      System.out.printf(
          Locale.ROOT,
          "heap after GC: idle before %s, after the storm %s, difference %s (%.1f bytes/cell)%n",
          Heap.mib(idle),
          Heap.mib(after),
          Heap.mib(after - idle),
          (after - idle) / (double) cells);
      System.out.printf(
          Locale.ROOT,
          "RESULT kind=%s cells=%d failedAll=%.3f scheduledAll=%s recoveredAll=%.3f peakMiB=%.0f idleMiB=%.0f afterMiB=%.0f leftBytesPerCell=%.1f%n",
          kind,
          cells,
          failedInWork.since(t0).toNanos() / 1e9,
          wrap
              ? String.format(Locale.ROOT, "%.3f", firstRestartScheduled.since(t0).toNanos() / 1e9)
              : "n/a",
          startedAfterOutage.since(t0).toNanos() / 1e9,
          peak / 1048576.0,
          idle / 1048576.0,
          after / 1048576.0,
          (after - idle) / (double) cells);
    } finally {
      Pekko.terminate(system);
    }
  }

  private static List<ActorRef<Broadcast>> spawn(
      ActorSystem<Void> system, Behavior<Cmd> cell, int cells) throws Exception {
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    List<ActorRef<Broadcast>> parents = new ArrayList<>();
    for (int p = 0; p < cells / PER_PARENT; p++) {
      CompletableFuture<Void> spawned = new CompletableFuture<>();
      ready.add(spawned);
      Behavior<Broadcast> parent =
          Behaviors.setup(
              ctx -> {
                List<ActorRef<Cmd>> children = new ArrayList<>(PER_PARENT);
                for (int i = 0; i < PER_PARENT; i++) {
                  children.add(ctx.spawnAnonymous(cell));
                }
                spawned.complete(null);
                return Behaviors.receiveMessage(
                    b -> {
                      for (ActorRef<Cmd> child : children) {
                        child.tell(b.cmd());
                      }
                      return Behaviors.same();
                    });
              });
      parents.add(system.systemActorOf(parent, "parent-" + p, Props.empty()));
    }
    CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    return parents;
  }

  private static void ping(List<ActorRef<Broadcast>> parents, int cells, String what)
      throws InterruptedException {
    CountDownLatch answered = new CountDownLatch(cells);
    Ping ping = new Ping(answered::countDown);
    for (ActorRef<Broadcast> parent : parents) {
      parent.tell(new Broadcast(ping));
    }
    if (!answered.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException(what + ": " + answered.getCount() + " cells did not answer");
    }
  }
}
