package dev.supervision.backoff.persistence;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.state.DurableStateStoreProvider;
import org.apache.pekko.persistence.state.scaladsl.DurableStateStore;
import org.apache.pekko.persistence.state.scaladsl.GetObjectResult;
import org.apache.pekko.persistence.testkit.state.scaladsl.PersistenceTestKitDurableStateStore;
import scala.concurrent.Future;

/**
 * The persistence test kit's in-memory durable state store, whose next reads or writes can be made
 * to fail (the test kit's own store has no failure injection).
 */
final class FlakyStateStore extends PersistenceTestKitDurableStateStore<Object> {

  private final AtomicInteger failingReads = new AtomicInteger();
  private final AtomicInteger failingWrites = new AtomicInteger();
  private final AtomicReference<Throwable> cause = new AtomicReference<>();

  FlakyStateStore(ExtendedActorSystem system) {
    super(system);
  }

  /** The next {@code n} reads ({@code getObject}, used by recovery) fail with {@code failure}. */
  void failNextReads(int n, Throwable failure) {
    cause.set(failure);
    failingReads.set(n);
  }

  /** The next {@code n} writes ({@code upsertObject}, used by persist) fail with {@code failure}. */
  void failNextWrites(int n, Throwable failure) {
    cause.set(failure);
    failingWrites.set(n);
  }

  @Override
  public Future<GetObjectResult<Object>> getObject(String persistenceId) {
    if (failingReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return Futures.failed(cause.get());
    }
    return super.getObject(persistenceId);
  }

  @Override
  public Future<Done> upsertObject(String persistenceId, long revision, Object value, String tag) {
    if (failingWrites.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return Futures.failed(cause.get());
    }
    return super.upsertObject(persistenceId, revision, value, tag);
  }

  /** The plugin: configured as {@code flaky-state-store.class}. */
  static final class Provider implements DurableStateStoreProvider {
    private final FlakyStateStore store;

    public Provider(ExtendedActorSystem system) {
      this.store = new FlakyStateStore(system);
    }

    @Override
    public DurableStateStore<Object> scaladslDurableStateStore() {
      return store;
    }

    @Override
    public org.apache.pekko.persistence.state.javadsl.DurableStateStore<Object> javadslDurableStateStore() {
      return new org.apache.pekko.persistence.testkit.state.javadsl.PersistenceTestKitDurableStateStore<>(store);
    }
  }
}
