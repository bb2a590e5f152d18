package dev.supervision.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Heap measurements for the memory and crash-storm benchmarks. */
final class Heap {

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private Heap() {}

  /**
   * The heap in use after full collections: {@code System.gc()} until the figure stops falling
   * (at most five times), so that garbage does not count.
   *
   * @return bytes in use
   */
  static long usedAfterGc() throws InterruptedException {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      long used = used();
      if (used >= best - (1 << 20)) {
        return Math.min(used, best);
      }
      best = Math.min(best, used);
    }
    return best;
  }

  /** The heap in use now, garbage included. */
  static long used() {
    return MEMORY.getHeapMemoryUsage().getUsed();
  }

  /** Mebibytes with one decimal. */
  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }

  /**
   * Samples the heap in use (garbage included) every 5 ms on a daemon thread and keeps the
   * highest value, for the peak during the crash storm.
   */
  static final class PeakSampler implements AutoCloseable {
    private final AtomicLong peak = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    PeakSampler() {
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  peak.accumulateAndGet(used(), Math::max);
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "heap-peak-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    /** The highest heap use seen so far. */
    long peak() {
      return Math.max(peak.get(), used());
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join();
    }
  }
}
