package dev.supervision.herd;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sends standard output and standard error to a file while one real-mode row runs, so that whatever
 * the row's {@code ActorSystem} prints (Pekko's log lines through SLF4J and logback's console
 * appender, which writes to whatever {@code System.err} is at the time; Pekko's own fatal-error
 * reports; a thousand-frame {@code StackOverflowError} per dispatcher thread under Pekko's immediate
 * restart) lands in the row's log and never on the terminal. Not thread-safe: open and finish it on
 * the thread that runs the rows.
 */
final class RowLog {

  private static final Pattern LOG_LINE =
      Pattern.compile("^\\d{2}:\\d{2}:\\d{2}\\.\\d{3} (WARN |ERROR) ", Pattern.MULTILINE);

  private static final Pattern THROWABLE = Pattern.compile("(java\\.lang\\.\\w*Error)");

  /**
   * What a row printed.
   *
   * @param file the log file, or {@code null} if the row printed nothing (the file is deleted)
   * @param fatalErrors how many fatal errors Pekko reported
   * @param fatalKind the class of the last fatal error, or {@code null}
   * @param logLines the WARN and ERROR lines in the file
   */
  record Summary(Path file, int fatalErrors, String fatalKind, long logLines) {
    /**
     * The summary in a few words.
     *
     * @return for example {@code StackOverflowError x25}, or an empty string
     */
    String shortText() {
      if (file == null) {
        return "";
      }
      if (fatalErrors > 0) {
        String kind = fatalKind.substring(fatalKind.lastIndexOf('.') + 1);
        return fatalErrors + " x " + kind;
      }
      return "see its log";
    }
  }

  private final Path file;
  private final PrintStream previousOut;
  private final PrintStream previousErr;
  private final OutputStream stream;
  private boolean closed;

  private RowLog(Path file, PrintStream previousOut, PrintStream previousErr, OutputStream stream) {
    this.file = file;
    this.previousOut = previousOut;
    this.previousErr = previousErr;
    this.stream = stream;
  }

  /**
   * Starts capturing standard output and standard error into {@code file}.
   *
   * @param file the log file; its folder is created
   * @return the capture; {@link #finish()} it to restore both streams
   * @throws IOException if the file cannot be opened
   */
  static RowLog open(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    OutputStream out = Files.newOutputStream(file);
    PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8);
    RowLog log = new RowLog(file, System.out, System.err, out);
    System.setOut(capture);
    System.setErr(capture);
    return log;
  }

  /**
   * Restores standard output and standard error; deletes the file (and its folder, if that is then
   * empty) if nothing, or only SLF4J's start-up notice, was written, and summarises it otherwise.
   * Safe to call more than once.
   *
   * @return what the row printed
   */
  Summary finish() {
    if (!closed) {
      closed = true;
      System.out.flush();
      System.err.flush();
      System.setOut(previousOut);
      System.setErr(previousErr);
      try {
        stream.close();
      } catch (IOException ignored) {
        // nothing more to save
      }
    }
    try {
      if (!Files.exists(file)) {
        return new Summary(null, 0, null, 0);
      }
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (text.lines().allMatch(line -> line.isBlank() || line.startsWith("SLF4J"))) {
        Files.delete(file);
        deleteIfEmpty(file.toAbsolutePath().getParent());
        return new Summary(null, 0, null, 0);
      }
      int fatal = 0;
      String kind = null;
      int at = 0;
      while ((at = text.indexOf("Uncaught error from thread", at)) >= 0) {
        fatal++;
        Matcher m = THROWABLE.matcher(text.substring(at, Math.min(text.length(), at + 2000)));
        if (m.find()) {
          kind = m.group(1);
        }
        at++;
      }
      long lines = LOG_LINE.matcher(text).results().count();
      return new Summary(file, fatal, kind == null ? "fatal error" : kind, lines);
    } catch (IOException e) {
      return new Summary(file, 0, null, 0);
    }
  }

  /**
   * Deletes a folder if it is empty.
   *
   * @param dir the folder
   */
  static void deleteIfEmpty(Path dir) {
    try (var entries = Files.list(dir)) {
      if (entries.findAny().isEmpty()) {
        Files.delete(dir);
      }
    } catch (IOException ignored) {
      // not empty, or already gone
    }
  }
}
