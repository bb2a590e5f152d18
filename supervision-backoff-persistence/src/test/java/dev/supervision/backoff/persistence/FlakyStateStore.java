package dev.supervision.backoff.persistence;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.Done;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.state.DurableStateStoreProvider;
import org.apache.pekko.persistence.state.scaladsl.DurableStateStore;
import org.apache.pekko.persistence.state.scaladsl.GetObjectResult;
import org.apache.pekko.persistence.testkit.state.scaladsl.PersistenceTestKitDurableStateStore;
import scala.concurrent.Future;

/**
 * The persistence test kit's in-memory durable state store, whose next reads or writes of a
 * persistence id can be made to fail (the test kit's own store has no failure injection).
 */
final class FlakyStateStore extends PersistenceTestKitDurableStateStore<Object> {

  /** A failure to inject {@code count} more times. */
  private record Failing(int count, Throwable cause) {}

  private final ConcurrentHashMap<String, Failing> failingReads = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Failing> failingWrites = new ConcurrentHashMap<>();

  FlakyStateStore(ExtendedActorSystem system) {
    super(system);
  }

  /** The next {@code n} reads of {@code persistenceId} (recovery) fail with {@code failure}. */
  void failNextReads(String persistenceId, int n, Throwable failure) {
    failingReads.put(persistenceId, new Failing(n, failure));
  }

  /** The next {@code n} writes of {@code persistenceId} (persist) fail with {@code failure}. */
  void failNextWrites(String persistenceId, int n, Throwable failure) {
    failingWrites.put(persistenceId, new Failing(n, failure));
  }

  /** The failure to inject now for {@code persistenceId}, if any, counted. */
  private static Throwable take(ConcurrentHashMap<String, Failing> failing, String persistenceId) {
    Throwable[] taken = {null};
    failing.computeIfPresent(
        persistenceId,
        (id, f) -> {
          taken[0] = f.cause();
          return f.count() > 1 ? new Failing(f.count() - 1, f.cause()) : null;
        });
    return taken[0];
  }

  @Override
  public Future<GetObjectResult<Object>> getObject(String persistenceId) {
    Throwable failure = take(failingReads, persistenceId);
    return failure != null ? Futures.failed(failure) : super.getObject(persistenceId);
  }

  @Override
  public Future<Done> upsertObject(String persistenceId, long revision, Object value, String tag) {
    Throwable failure = take(failingWrites, persistenceId);
    return failure != null
        ? Futures.failed(failure)
        : super.upsertObject(persistenceId, revision, value, tag);
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
    public org.apache.pekko.persistence.state.javadsl.DurableStateStore<Object>
        javadslDurableStateStore() {
      return new org.apache.pekko.persistence.testkit.state.javadsl
          .PersistenceTestKitDurableStateStore<>(store);
    }
  }
}
