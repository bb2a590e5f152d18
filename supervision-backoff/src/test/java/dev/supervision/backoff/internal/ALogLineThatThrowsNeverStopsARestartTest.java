package dev.supervision.backoff.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * A log call of the library that throws (an appender failing with an error, which logback lets
 * through) is ignored, and the {@code pekkoSource} MDC key is put back: logging never stops a
 * restart. A fatal error is not caught.
 */
final class ALogLineThatThrowsNeverStopsARestartTest {

  /** A logger of its own logback context, whose one appender throws {@code thrown}. */
  private static Logger loggerWhoseAppenderThrows(Error thrown) {
    LoggerContext context = new LoggerContext();
    AppenderBase<ILoggingEvent> throwing =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent event) {
            throw thrown;
          }
        };
    throwing.setContext(context);
    throwing.start();
    ch.qos.logback.classic.Logger logger = context.getLogger("throwing");
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logger.addAppender(throwing);
    return logger;
  }

  @AfterEach
  void clearTheMdc() {
    MDC.remove("pekkoSource");
  }

  @Test
  void aLogCallThatThrowsIsIgnored_andTheMdcIsAsBefore() {
    Logger logger = loggerWhoseAppenderThrows(new AssertionError("the appender is broken"));
    MDC.put("pekkoSource", "before");
    SupervisorLog.write(logger, Level.WARN, null, "actor", "a line {}", 1);
    assertEquals("before", MDC.get("pekkoSource"));
    MDC.remove("pekkoSource");
    SupervisorLog.write(logger, Level.WARN, null, "actor", "a line {}", 2);
    assertNull(MDC.get("pekkoSource"));
  }

  @Test
  void aFatalErrorOfALogCallIsNotCaught() {
    LinkageError fatal = new LinkageError("fatal");
    Logger logger = loggerWhoseAppenderThrows(fatal);
    assertSame(
        fatal,
        assertThrows(
            LinkageError.class,
            () -> SupervisorLog.write(logger, Level.WARN, null, "actor", "a line")));
    assertNull(MDC.get("pekkoSource"), "put back on the way out too");
  }
}
