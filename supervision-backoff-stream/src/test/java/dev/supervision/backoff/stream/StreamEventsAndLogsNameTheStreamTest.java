package dev.supervision.backoff.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.supervision.backoff.BackoffEvent;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.stream.Probes.Boom;
import dev.supervision.backoff.testkit.BackoffProbe;
import dev.supervision.backoff.testkit.BackoffTestKit;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * A stream's events are the actors' events ({@link BackoffEvent}'s records, unchanged); their
 * {@code actor()} is the stage's actor, whose name carries the stream's; log lines name the stream.
 */
final class StreamEventsAndLogsNameTheStreamTest {

  @RegisterExtension static final BackoffTestKit kit = BackoffTestKit.create();

  @Test
  void eventsNameTheStreamAndEachMaterializationHasItsOwnActor() {
    BackoffProbe probe = kit.createProbe();
    BackoffPolicy policy = Probes.exact().withListener(probe.listener());
    Controlled first = new Controlled();
    Controlled second = new Controlled();
    String name = "orders feed/ü";
    SinkQueueWithCancel<String> a =
        BackoffSource.withBackoff(name, policy, first::create).runWith(Sink.queue(), kit.system());
    SinkQueueWithCancel<String> b =
        BackoffSource.withBackoff(name, policy, second::create).runWith(Sink.queue(), kit.system());
    first.fail(new Boom("a"));
    BackoffEvent.RestartScheduled ofA = probe.expectRestartScheduled();
    second.fail(new Boom("b"));
    BackoffEvent.RestartScheduled ofB = probe.expectRestartScheduled();
    assertEquals(Optional.of(name), BackoffStreams.streamName(ofA));
    assertEquals(Optional.of(name), BackoffStreams.streamName(ofB));
    assertNotEquals(ofA.actor(), ofB.actor());
    assertTrue(BackoffStreams.isStreamEvent(ofA));
    a.cancel();
    b.cancel();
  }

  @Test
  void aStreamWithoutANameHasItsStagesDefaultName() {
    BackoffProbe probe = kit.createProbe();
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out =
        BackoffSource.withBackoff(Probes.exact().withListener(probe.listener()), inner::create)
            .runWith(Sink.queue(), kit.system());
    inner.fail(new Boom("x"));
    assertEquals(
        Optional.of(BackoffSource.DEFAULT_NAME),
        BackoffStreams.streamName(probe.expectRestartScheduled()));
    out.cancel();
  }

  @Test
  void anActorsEventsAreNoStreamEvents() {
    BackoffProbe probe = kit.createProbe();
    ActorRef<String> actor =
        kit.spawn(
            BackoffSupervisor.wrap(
                Behaviors.<String>receiveMessage(
                    m -> {
                      throw new Boom(m);
                    }),
                Probes.exact().withListener(probe.listener())));
    actor.tell("fail");
    BackoffEvent.RestartScheduled event = probe.expectRestartScheduled();
    assertEquals(Optional.empty(), BackoffStreams.streamName(event));
    kit.testKit().stop(actor);
  }

  @Test
  void eventsArePublishedOnTheEventStreamWhenThePolicySaysSo() {
    BackoffProbe probe = kit.createProbe().subscribeToEventStream();
    Controlled inner = new Controlled();
    SinkQueueWithCancel<String> out =
        BackoffSource.withBackoff(
                "published", Probes.exact().withEventStreamPublishing(true), inner::create)
            .runWith(Sink.queue(), kit.system());
    inner.fail(new Boom("x"));
    assertEquals(
        Optional.of("published"), BackoffStreams.streamName(probe.expectRestartScheduled()));
    out.cancel();
  }

  @Test
  void aListenerThatThrowsDoesNotStopTheRestart() {
    BackoffProbe probe = kit.createProbe();
    Controlled inner = new Controlled();
    BackoffPolicy policy =
        Probes.exact()
            .withListener(
                e -> {
                  throw new IllegalStateException("broken listener");
                })
            .withListener(probe.listener());
    SinkQueueWithCancel<String> out =
        BackoffSource.withBackoff("listened", policy, inner::create)
            .runWith(Sink.queue(), kit.system());
    inner.fail(new Boom("x"));
    probe.expectRestartScheduled();
    probe.advanceToRestart(kit.time());
    probe.expectRestarted();
    out.cancel();
  }

  @Test
  void aFailureIsLoggedAtThePolicysLevelWithTheStreamsName() {
    Logger logger =
        (Logger) LoggerFactory.getLogger("dev.supervision.backoff.stream.BackoffSource");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    try {
      BackoffProbe probe = kit.createProbe();
      Controlled inner = new Controlled();
      SinkQueueWithCancel<String> out =
          BackoffSource.withBackoff(
                  "logged",
                  Probes.exact()
                      .withLoggingEnabled(true)
                      .withLogLevel(Level.INFO)
                      .withListener(probe.listener()),
                  inner::create)
              .runWith(Sink.queue(), kit.system());
      inner.fail(new Boom("db down"));
      probe.expectRestartScheduled();
      out.cancel();
      List<ILoggingEvent> lines =
          appender.list.stream()
              .filter(e -> e.getFormattedMessage().contains("[logged] failed"))
              .toList();
      assertEquals(1, lines.size(), appender.list.toString());
      ILoggingEvent line = lines.get(0);
      assertEquals(ch.qos.logback.classic.Level.INFO, line.getLevel());
      assertEquals(
          "Backoff source [logged] failed (attempt 1), restarting in 1000 ms: "
              + Boom.class.getName()
              + ": db down",
          line.getFormattedMessage());
      assertTrue(line.getMDCPropertyMap().get("pekkoSource").contains("backoff-stream:logged"));
    } finally {
      logger.setLevel(before);
      logger.detachAppender(appender);
    }
  }

  @Test
  void withLoggingDisabledNothingIsLogged() {
    Logger logger =
        (Logger) LoggerFactory.getLogger("dev.supervision.backoff.stream.BackoffSource");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      BackoffProbe probe = kit.createProbe();
      Controlled inner = new Controlled();
      SinkQueueWithCancel<String> out =
          BackoffSource.withBackoff(
                  "silent", Probes.exact().withListener(probe.listener()), inner::create)
              .runWith(Sink.queue(), kit.system());
      inner.fail(new Boom("db down"));
      probe.expectRestartScheduled();
      out.cancel();
      assertEquals(
          List.of(),
          appender.list.stream().filter(e -> e.getFormattedMessage().contains("silent")).toList());
    } finally {
      logger.detachAppender(appender);
    }
  }

  /** After {@code afterFailures} failures in a row the critical level applies, as for an actor. */
  @Test
  void failuresAfterTheCriticalCountAreLoggedAtTheCriticalLevel() {
    Logger logger =
        (Logger) LoggerFactory.getLogger("dev.supervision.backoff.stream.BackoffSource");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      BackoffProbe probe = kit.createProbe();
      Controlled inner = new Controlled();
      SinkQueueWithCancel<String> out =
          BackoffSource.withBackoff(
                  "critical",
                  Probes.exact()
                      .withLoggingEnabled(true)
                      .withCriticalLogLevel(Level.ERROR, 1)
                      .withListener(probe.listener()),
                  inner::create)
              .runWith(Sink.queue(), kit.system());
      inner.fail(new Boom("first"));
      probe.expectRestartScheduled();
      probe.advanceToRestart(kit.time());
      probe.expectRestarted();
      inner.fail(new Boom("second"));
      probe.expectRestartScheduled();
      out.cancel();
      List<ch.qos.logback.classic.Level> levels =
          appender.list.stream()
              .filter(e -> e.getFormattedMessage().contains("[critical] failed"))
              .map(ILoggingEvent::getLevel)
              .toList();
      assertEquals(
          List.of(ch.qos.logback.classic.Level.WARN, ch.qos.logback.classic.Level.ERROR), levels);
    } finally {
      logger.detachAppender(appender);
    }
  }

  /** As Pekko: a restart after a completion is logged at INFO when the policy's level is WARN. */
  @Test
  void aRestartAfterACompletionIsLoggedAtInfo() {
    Logger logger =
        (Logger) LoggerFactory.getLogger("dev.supervision.backoff.stream.BackoffSource");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    try {
      BackoffProbe probe = kit.createProbe();
      SinkQueueWithCancel<String> out =
          BackoffSource.withBackoff(
                  "completing",
                  Probes.exact().withLoggingEnabled(true).withListener(probe.listener()),
                  () -> org.apache.pekko.stream.javadsl.Source.single("a"))
              .runWith(Sink.queue(), kit.system());
      Probes.expectNext(out, "a");
      probe.expectRestartScheduled();
      out.cancel();
      List<ILoggingEvent> lines =
          appender.list.stream()
              .filter(e -> e.getFormattedMessage().contains("[completing] completed"))
              .toList();
      assertEquals(1, lines.size(), appender.list.toString());
      assertEquals(ch.qos.logback.classic.Level.INFO, lines.get(0).getLevel());
      assertEquals(
          "Backoff source [completing] completed (attempt 1), restarting in 1000 ms",
          lines.get(0).getFormattedMessage());
    } finally {
      logger.setLevel(before);
      logger.detachAppender(appender);
    }
  }
}
