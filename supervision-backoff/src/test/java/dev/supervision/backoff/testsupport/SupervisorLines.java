package dev.supervision.backoff.testsupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.LoggerFactory;

/** Every log line of the supervisor's logger, kept in memory, to count the lines about one actor. */
public final class SupervisorLines implements AutoCloseable {

  private final Logger logger =
      (Logger) LoggerFactory.getLogger("dev.supervision.backoff.BackoffSupervisor");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  /** Starts keeping the lines of the supervisor's logger ({@link #close} stops). */
  public SupervisorLines() {
    appender.start();
    logger.addAppender(appender);
  }

  /** The lines about {@code actor} (its path is in the {@code pekkoSource} MDC key of each line). */
  public List<ILoggingEvent> about(ActorRef<?> actor) {
    String path = actor.path().toString();
    synchronized (appender) {
      return appender.list.stream()
          .filter(e -> path.equals(e.getMDCPropertyMap().get("pekkoSource")))
          .collect(Collectors.toList());
    }
  }

  /**
   * The lines about {@code actor} at {@code level} whose message contains {@code text}.
   *
   * @param actor the actor
   * @param level the level, WARN say
   * @param text what the line's formatted message contains ("" for any)
   * @return the lines, in order
   */
  public List<ILoggingEvent> about(ActorRef<?> actor, Level level, String text) {
    return about(actor).stream()
        .filter(e -> e.getLevel() == level && e.getFormattedMessage().contains(text))
        .collect(Collectors.toList());
  }

  /** Every line so far. */
  public List<ILoggingEvent> all() {
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
