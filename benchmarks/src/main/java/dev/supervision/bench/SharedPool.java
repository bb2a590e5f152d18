package dev.supervision.bench;

import com.typesafe.config.Config;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

/**
 * One fork-join pool for the dispatchers of every actor system in this JVM, for {@link
 * CoordinationCost} with many nodes per JVM: set as a dispatcher's {@code executor}, for example
 * {@code -Dpekko.actor.default-dispatcher.executor=dev.supervision.bench.SharedPool} (and the same
 * for {@code pekko.actor.internal-dispatcher} and {@code pekko.remote.default-remote-dispatcher}).
 * A hundred nodes on two cores then share {@code -Dcost.shared-pool.parallelism} threads (default
 * 2) instead of running five pools each. It changes where the systems' work runs, not what they
 * send. Its threads are named {@code cost-shared-N}, so the harness counts their CPU with the
 * systems'. Pekko's shutdown of a dispatcher's executor leaves the shared pool running.
 */
public final class SharedPool extends ExecutorServiceConfigurator {

  private static final ForkJoinPool POOL =
      new ForkJoinPool(
          Integer.getInteger("cost.shared-pool.parallelism", 2),
          pool -> {
            ForkJoinWorkerThread t =
                ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName(CoordinationCost.SYSTEM + "-shared-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
          },
          null,
          true);

  /**
   * Made by Pekko for each dispatcher configured with this executor.
   *
   * @param config the dispatcher's configuration (not read)
   * @param prerequisites the dispatcher's prerequisites (not read)
   */
  public SharedPool(Config config, DispatcherPrerequisites prerequisites) {
    super(config, prerequisites);
  }

  @Override
  public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory factory) {
    return Shared::new;
  }

  /** The shared pool as one dispatcher's executor: it runs tasks, its shutdown does nothing. */
  private static final class Shared extends AbstractExecutorService {
    @Override
    public void execute(Runnable task) {
      POOL.execute(task);
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    /** Never shut down, so never terminated: both answers are false. */
    @Override
    public boolean isShutdown() {
      return isTerminated();
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
