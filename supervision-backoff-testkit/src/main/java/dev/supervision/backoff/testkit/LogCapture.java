package dev.supervision.backoff.testkit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.internal.CapturingAppender;
import org.slf4j.LoggerFactory;

/**
 * Keeps the log of a test class in memory and prints it only for failed tests. Touches logback
 * classes: {@link BackoffTestKit} loads this class only when logback is present.
 *
 * <p>Two ways, chosen once per test class:
 *
 * <ul>
 *   <li>If the root logger has Pekko's {@code CapturingAppender} (the set-up that Pekko's
 *       {@code LogCapturing} documents), that appender already buffers everything: on a failure it is
 *       flushed to the appenders of its delegate logger, otherwise it is cleared.
 *   <li>Otherwise the root logger's printing appenders (console, file) are detached for the class
 *       and replaced by a buffer; on a failure the buffer is replayed to them. They are put back
 *       when the class ends.
 * </ul>
 */
abstract class LogCapture {

  /** Prints the buffered log of a failed test under a header, then clears it. */
  abstract void flush(String test, Throwable failure);

  /** Drops the buffered log. */
  abstract void clear();

  /** Restores the logging set-up found at {@link #start()}. */
  abstract void stop();

  /** Starts capturing, or returns {@code null} if the SLF4J binding is not logback. */
  static LogCapture start() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return null;
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next() instanceof CapturingAppender pekko) {
        return new PekkoCapture(pekko);
      }
    }
    List<Appender<ILoggingEvent>> printing = new ArrayList<>();
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      Appender<ILoggingEvent> appender = it.next();
      if (appender instanceof OutputStreamAppender) {
        printing.add(appender);
      }
    }
    if (printing.isEmpty()) {
      return null;
    }
    return new BufferCapture(root, printing);
  }

  static void header(String test, Throwable failure, boolean start) {
    System.out.println(
        (start ? "--> log of " : "<-- end of the log of ") + test + ", which failed: " + failure);
  }

  private static final class PekkoCapture extends LogCapture {
    private final CapturingAppender appender;

    PekkoCapture(CapturingAppender appender) {
      this.appender = appender;
    }

    @Override
    void flush(String test, Throwable failure) {
      header(test, failure, true);
      appender.flush();
      header(test, failure, false);
    }

    @Override
    void clear() {
      appender.clear();
    }

    @Override
    void stop() {
      appender.clear();
    }
  }

  private static final class BufferCapture extends LogCapture {
    private final Logger root;
    private final List<Appender<ILoggingEvent>> printing;
    private final Buffer buffer = new Buffer();

    BufferCapture(Logger root, List<Appender<ILoggingEvent>> printing) {
      this.root = root;
      this.printing = printing;
      buffer.setContext(root.getLoggerContext());
      buffer.setName("supervision-backoff-testkit-buffer");
      buffer.start();
      root.addAppender(buffer);
      printing.forEach(root::detachAppender);
    }

    @Override
    void flush(String test, Throwable failure) {
      List<ILoggingEvent> events = buffer.drain();
      header(test, failure, true);
      for (ILoggingEvent event : events) {
        for (Appender<ILoggingEvent> appender : printing) {
          appender.doAppend(event);
        }
      }
      header(test, failure, false);
    }

    @Override
    void clear() {
      buffer.drain();
    }

    @Override
    void stop() {
      printing.forEach(root::addAppender);
      root.detachAppender(buffer);
      buffer.stop();
    }
  }

  /** Buffers events; {@code doAppend} of {@link AppenderBase} is synchronized. */
  private static final class Buffer extends AppenderBase<ILoggingEvent> {
    private List<ILoggingEvent> events = new ArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
      event.prepareForDeferredProcessing();
      events.add(event);
    }

    synchronized List<ILoggingEvent> drain() {
      List<ILoggingEvent> drained = events;
      events = new ArrayList<>();
      return drained;
    }
  }
}
