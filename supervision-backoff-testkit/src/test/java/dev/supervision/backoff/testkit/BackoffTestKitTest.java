package dev.supervision.backoff.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.internal.CapturingAppender;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.slf4j.LoggerFactory;

/**
 * What the extension does for the test classes that register it, checked by running small sample
 * classes with JUnit's engine test kit.
 */
final class BackoffTestKitTest {

  /** The samples run only when a test here runs them (surefire skips nested classes anyway). */
  static volatile boolean runningSamples;

  static final List<ActorSystem<?>> systems = new CopyOnWriteArrayList<>();

  private static EngineExecutionResults run(Class<?> sample) {
    runningSamples = true;
    try {
      return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute();
    } finally {
      runningSamples = false;
    }
  }

  static final class TwoTests {
    @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

    @Test
    void first() {
      Assumptions.assumeTrue(runningSamples);
      systems.add(kit.system());
    }

    @Test
    void second() {
      Assumptions.assumeTrue(runningSamples);
      systems.add(kit.system());
    }
  }

  @Test
  void theTestsOfAClassShareOneManualTimeSystem_shutDownAfterTheClass_andANewRunGetsANewOne() {
    systems.clear();
    run(TwoTests.class).testEvents().assertStatistics(s -> s.succeeded(2).failed(0));
    run(TwoTests.class).testEvents().assertStatistics(s -> s.succeeded(2).failed(0));
    assertEquals(4, systems.size());
    assertSame(systems.get(0), systems.get(1));
    assertSame(systems.get(2), systems.get(3));
    assertNotSame(systems.get(0), systems.get(2));
    for (ActorSystem<?> system : systems) {
      system.getWhenTerminated().toCompletableFuture().join(); // shut down by afterAll, not leaked
      assertTrue(
          system
              .settings()
              .config()
              .getString("pekko.scheduler.implementation")
              .endsWith("ExplicitlyTriggeredScheduler"));
    }
    assertEquals("TwoTests", systems.get(0).name());
  }

  static final class WithConfig {
    @RegisterExtension
    static final BackoffTestKit kit =
        BackoffTestKit.create(
            ConfigFactory.parseString(
                String.join(
                    "\n",
                    "pekko.actor.typed.restart-stash-capacity = 3",
                    "pekko.scheduler.implementation = org.apache.pekko.actor.LightArrayRevolverScheduler")));

    @Test
    void recordsItsSystem() {
      Assumptions.assumeTrue(runningSamples);
      systems.add(kit.system());
    }
  }

  @Test
  void createWithConfig_givesTheSystemTheseSettings_withManualTimeOverThem() {
    systems.clear();
    run(WithConfig.class).testEvents().assertStatistics(s -> s.succeeded(1).failed(0));
    assertEquals(1, systems.size());
    ActorSystem<?> system = systems.get(0);
    system
        .getWhenTerminated()
        .toCompletableFuture()
        .join(); // shut down by afterAll, as without config
    assertEquals(3, system.settings().config().getInt("pekko.actor.typed.restart-stash-capacity"));
    assertTrue(
        system
            .settings()
            .config()
            .getString("pekko.scheduler.implementation")
            .endsWith("ExplicitlyTriggeredScheduler"));
  }

  static final class InstanceField {
    @RegisterExtension final BackoffTestKit kit = BackoffTestKit.create();

    @Test
    void leaksASystem() {
      Assumptions.assumeTrue(runningSamples);
      systems.add(kit.system());
    }
  }

  @Test
  void anInstanceField_failsTheTestBeforeItStartsASystem_sayingToMakeItStatic() {
    systems.clear();
    EngineExecutionResults results = run(InstanceField.class);
    results.testEvents().assertStatistics(s -> s.failed(1));
    Throwable failure =
        results
            .testEvents()
            .failed()
            .list()
            .get(0)
            .getPayload(org.junit.platform.engine.TestExecutionResult.class)
            .orElseThrow()
            .getThrowable()
            .orElseThrow();
    assertTrue(failure instanceof ExtensionConfigurationException, failure.toString());
    assertTrue(
        failure.getMessage().startsWith("register BackoffTestKit in a static field"),
        failure.getMessage());
    assertEquals(List.of(), systems);
  }

  static final class OnePassesOneFails {
    @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

    @Test
    void passes() {
      Assumptions.assumeTrue(runningSamples);
      kit.system().log().info("line of the passing test");
    }

    @Test
    void fails() {
      Assumptions.assumeTrue(runningSamples);
      kit.system().log().info("line of the failing test");
      throw new AssertionError("on purpose");
    }
  }

  @Test
  void withAConsoleAppender_printsTheLogOfTheFailedTestOnly_andPutsTheAppenderBack() {
    Logger root = root();
    List<Appender<ILoggingEvent>> original = detachAll(root);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OutputStreamAppender<ILoggingEvent> console = appender(root.getLoggerContext(), out);
    root.addAppender(console);
    try {
      run(OnePassesOneFails.class).testEvents().assertStatistics(s -> s.succeeded(1).failed(1));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains("line of the failing test"), printed);
      assertFalse(printed.contains("line of the passing test"), printed);
      assertEquals(List.of(console), appenders(root), "the console is back, the buffer gone");
      root.info("after the class");
      assertTrue(out.toString(StandardCharsets.UTF_8).contains("after the class"));
    } finally {
      detachAll(root);
      original.forEach(root::addAppender);
    }
  }

  @Test
  void withPekkosCapturingAppender_flushesItForTheFailedTestOnly() {
    Logger root = root();
    List<Appender<ILoggingEvent>> original = detachAll(root);
    LoggerContext context = root.getLoggerContext();
    CapturingAppender capturing = new CapturingAppender();
    capturing.setContext(context);
    capturing.setName("CapturingAppender");
    capturing.start();
    root.addAppender(capturing);
    Logger delegate = context.getLogger(CapturingAppender.class.getName() + "Delegate");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    delegate.addAppender(appender(context, out));
    try {
      run(OnePassesOneFails.class).testEvents().assertStatistics(s -> s.succeeded(1).failed(1));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains("line of the failing test"), printed);
      assertFalse(printed.contains("line of the passing test"), printed);
    } finally {
      delegate.detachAndStopAllAppenders();
      detachAll(root);
      capturing.stop();
      original.forEach(root::addAppender);
    }
  }

  @Test
  void createProbe_givesAProbeOfTheClassSystem() {
    systems.clear();
    run(ProbeSample.class).testEvents().assertStatistics(s -> s.succeeded(1).failed(0));
  }

  static final class ProbeSample {
    @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

    @Test
    void probeSeesTheRestart() {
      Assumptions.assumeTrue(runningSamples);
      BackoffProbe probe = kit.createProbe();
      var actor =
          kit.spawn(
              dev.supervision.backoff.BackoffSupervisor.wrap(
                  Child.create(kit.<String>createTestProbe().ref()),
                  dev.supervision.backoff.BackoffPolicy.exponential(
                          Duration.ofMillis(10), Duration.ofSeconds(1))
                      .withListener(probe.listener())));
      actor.tell("fail");
      probe.expectRestartScheduled();
      probe.advanceToRestart(kit.time());
      probe.expectRestarted();
    }
  }

  private static Logger root() {
    return ((LoggerContext) LoggerFactory.getILoggerFactory())
        .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  private static List<Appender<ILoggingEvent>> appenders(Logger logger) {
    List<Appender<ILoggingEvent>> all = new ArrayList<>();
    for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
      all.add(it.next());
    }
    return all;
  }

  private static List<Appender<ILoggingEvent>> detachAll(Logger logger) {
    List<Appender<ILoggingEvent>> all = appenders(logger);
    all.forEach(logger::detachAppender);
    return all;
  }

  private static OutputStreamAppender<ILoggingEvent> appender(
      LoggerContext context, ByteArrayOutputStream out) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    return appender;
  }
}
