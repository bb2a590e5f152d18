package dev.supervision.backoff.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.Objects;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that owns one {@link ManualTime} {@link ActorTestKit} per test class, shuts
 * it down once after the class, prints the log of failed tests only, and hands out {@link
 * BackoffProbe}s. Register it in a <em>static</em> field:
 *
 * <pre>{@code
 * @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();
 *
 * @Test
 * void comesBackAfterItsBackoff() {
 *   BackoffProbe probe = kit.createProbe();
 *   ActorRef<String> actor = kit.spawn(BackoffSupervisor.wrap(child, policy.withListener(probe.listener())));
 *   actor.tell("fail");
 *   probe.expectRestartScheduled();
 *   probe.advanceToRestart(kit.time());
 *   probe.expectRestarted();
 * }
 * }</pre>
 *
 * <p>The actor system starts in {@code beforeAll} (or earlier, if a static initializer asks for it)
 * and is shut down in {@code afterAll}; a runner that runs the class again in the same
 * JVM gets a new one. Registered in an instance field, it fails every test at once with an {@link
 * ExtensionConfigurationException}: JUnit would never call its {@code afterAll}, and each test would
 * leave an actor system running.
 *
 * <p>Logs: with logback, everything logged while the class runs is kept in memory and printed only
 * for a test that fails (under {@code --> log of ...} and {@code <-- end of the log of ...}), as
 * Pekko's {@code LogCapturing} does. If the root logger has Pekko's {@code CapturingAppender}, that
 * appender is used; otherwise the root logger's console and file appenders are detached while the
 * class runs and fed from a buffer on failures. Without logback nothing is captured. Test classes
 * must not run in parallel with each other in one JVM while capturing.
 *
 * <p>Thread-safe.
 */
public final class BackoffTestKit
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final Config config;
  private ActorTestKit kit; // guarded by this
  private String name = "BackoffTestKit"; // guarded by this
  private int classesRunning; // guarded by this; nested classes share the kit
  private LogCapture capture; // guarded by this

  private BackoffTestKit(Config config) {
    this.config = config;
  }

  /**
   * An extension whose actor system has {@link ManualTime#config()} on top of Pekko's test kit
   * defaults.
   *
   * @return the extension
   */
  public static BackoffTestKit create() {
    return new BackoffTestKit(ConfigFactory.empty());
  }

  /**
   * As {@link #create()}, with {@code config} for the actor system; {@link ManualTime#config()}
   * takes precedence over it.
   *
   * @param config settings for the actor system, for example budgets or a policy block
   * @return the extension
   * @throws NullPointerException if {@code config} is {@code null}
   */
  public static BackoffTestKit create(Config config) {
    return new BackoffTestKit(Objects.requireNonNull(config, "config"));
  }

  /**
   * The test kit of the running test class, started on first use.
   *
   * @return the test kit
   */
  public synchronized ActorTestKit testKit() {
    if (kit == null) {
      kit = ActorTestKit.create(name, ManualTime.config().withFallback(config));
    }
    return kit;
  }

  /**
   * The test kit's actor system.
   *
   * @return the actor system
   */
  public ActorSystem<Void> system() {
    return testKit().system();
  }

  /**
   * The manual clock of the test kit's actor system.
   *
   * @return the manual time
   */
  public ManualTime time() {
    return ManualTime.get(system());
  }

  /**
   * A new probe for the events of actors of this kit; attach it with {@link
   * BackoffProbe#listener()} or {@link BackoffProbe#subscribeToEventStream()}.
   *
   * @return a new probe
   */
  public BackoffProbe createProbe() {
    return BackoffProbe.create(testKit());
  }

  /**
   * Spawns {@code behavior} as a child of the test kit's guardian, with a generated name.
   *
   * @param behavior the behavior, typically a {@code BackoffSupervisor.wrap(...)}
   * @param <T> the message type
   * @return the actor
   */
  public <T> ActorRef<T> spawn(Behavior<T> behavior) {
    return testKit().spawn(behavior);
  }

  /**
   * Spawns {@code behavior} as a child of the test kit's guardian.
   *
   * @param behavior the behavior
   * @param name the actor's name, unique among the kit's running actors
   * @param <T> the message type
   * @return the actor
   */
  public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
    return testKit().spawn(behavior, name);
  }

  /**
   * A new Pekko test probe of this kit.
   *
   * @param <T> the message type
   * @return the probe
   */
  public <T> TestProbe<T> createTestProbe() {
    return testKit().createTestProbe();
  }

  /** Starts log capture and the actor system for the class. Called by JUnit. */
  @Override
  public synchronized void beforeAll(ExtensionContext context) {
    if (classesRunning++ > 0) {
      return;
    }
    name = context.getRequiredTestClass().getSimpleName().replaceAll("[^a-zA-Z0-9_-]", "_");
    capture = startCapture();
    testKit(); // a system that cannot start fails the class, not its first test
  }

  /** Shuts the test kit down after the outermost class. Called by JUnit. */
  @Override
  public synchronized void afterAll(ExtensionContext context) {
    if (--classesRunning > 0) {
      return;
    }
    try {
      if (kit != null) {
        kit.shutdownTestKit();
      }
    } finally {
      kit = null;
      if (capture != null) {
        context.getExecutionException().ifPresent(e -> capture.flush(context.getDisplayName(), e));
        capture.stop();
        capture = null;
      }
    }
  }

  /** Refuses to run when registered in an instance field. Called by JUnit. */
  @Override
  public synchronized void beforeEach(ExtensionContext context) {
    if (classesRunning == 0) {
      throw new ExtensionConfigurationException(
          "register BackoffTestKit in a static field (@RegisterExtension static final BackoffTestKit"
              + " kit = BackoffTestKit.create()): in an instance field JUnit creates one per test and"
              + " never calls its afterAll, so every test would leave an actor system running");
    }
  }

  /** Prints the log of a failed test, then drops it. Called by JUnit. */
  @Override
  public synchronized void afterEach(ExtensionContext context) {
    if (capture == null) {
      return;
    }
    context
        .getExecutionException()
        .ifPresentOrElse(
            e ->
                capture.flush(
                    context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName(),
                    e),
            capture::clear);
  }

  private static LogCapture startCapture() {
    try {
      return LogCapture.start();
    } catch (LinkageError noLogback) {
      return null; // logback (or Pekko's test kit appender) is not on the class path
    }
  }
}
