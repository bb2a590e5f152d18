package dev.supervision.backoff.persistence;

import dev.supervision.backoff.testkit.BackoffTestKit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The actors a test spawned, stopped after it, so that none restarts while the next test moves the
 * clock. Register it in a static field after the kit: JUnit runs it before the kit's own
 * {@code afterEach}.
 */
final class SpawnedActors implements AfterEachCallback {

  private final BackoffTestKit kit;
  private final List<ActorRef<?>> spawned = new CopyOnWriteArrayList<>();

  SpawnedActors(BackoffTestKit kit) {
    this.kit = kit;
  }

  /** Remembers {@code ref}, to stop it after the test. */
  <T> ActorRef<T> track(ActorRef<T> ref) {
    spawned.add(ref);
    return ref;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    spawned.forEach(kit.testKit()::stop);
    spawned.clear();
  }
}
