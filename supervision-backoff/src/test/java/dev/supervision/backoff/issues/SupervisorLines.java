package dev.supervision.backoff.issues;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.LoggerFactory;

/** Every log line of the supervisor's logger, kept in memory, to count the lines about one actor. */
final class SupervisorLines implements AutoCloseable {

  private final Logger logger =
      (Logger) LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  SupervisorLines() {
    appender.start();
    logger.addAppender(appender);
  }

  /** The lines about {@code actor} (its path is in the {@code pekkoSource} MDC key of each line). */
  List<ILoggingEvent> about(ActorRef<?> actor) {
    String path = actor.path().toString();
    synchronized (appender) {
      return appender.list.stream()
          .filter(e -> path.equals(e.getMDCPropertyMap().get("pekkoSource")))
          .collect(Collectors.toList());
    }
  }

  /** Every line so far. */
  List<ILoggingEvent> all() {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
