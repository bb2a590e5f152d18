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
 * Sends standard error to a file while one real-mode row runs. Pekko's immediate restart makes
 * Pekko print a thousand-frame {@code StackOverflowError} per dispatcher thread straight to {@code
 * System.err}; the terminal gets one summary line instead and the file keeps every word. Not
 * thread-safe: open and close it on the thread that runs the rows.
 */
final class RowLog implements AutoCloseable {

  private static final Pattern FATAL =
      Pattern.compile("Uncaught error from thread \\[[^\\]]*\\]: [^\\n]*\\n(\\S+)");

  private final Path file;
  private final PrintStream previous;
  private final OutputStream stream;

  private RowLog(Path file, PrintStream previous, OutputStream stream) {
    this.file = file;
    this.previous = previous;
    this.stream = stream;
  }

  /**
   * Starts capturing standard error into {@code file}.
   *
   * @param file the log file; its folder is created
   * @return the capture; close it to restore standard error
   * @throws IOException if the file cannot be opened
   */
  static RowLog open(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    OutputStream out = Files.newOutputStream(file);
    PrintStream previous = System.err;
    System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
    return new RowLog(file, previous, out);
  }

  /**
   * Restores standard error, deletes the file if nothing (or only SLF4J's start-up notice) was
   * written, and summarises it otherwise.
   *
   * @return a one-line summary, or an empty string if the row printed nothing
   */
  String finish() {
    close();
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      // SLF4J's notice that it replayed the calls made while it initialised is not worth a line
      if (text.lines().allMatch(line -> line.isBlank() || line.startsWith("SLF4J(W): "))) {
        Files.delete(file);
        return "";
      }
      Matcher m = FATAL.matcher(text);
      int fatal = 0;
      String kind = null;
      while (m.find()) {
        fatal++;
        kind = m.group(1);
      }
      return fatal > 0
          ? "Pekko reported " + fatal + " fatal errors (" + kind + ") and shut the ActorSystem down; see " + file
          : "the row wrote to standard error; see " + file;
    } catch (IOException e) {
      return "could not read " + file + ": " + e;
    }
  }

  @Override
  public void close() {
    if (System.err != previous) {
      System.err.flush();
      System.setErr(previous);
      try {
        stream.close();
      } catch (IOException ignored) {
        // nothing more to save
      }
    }
  }
}
