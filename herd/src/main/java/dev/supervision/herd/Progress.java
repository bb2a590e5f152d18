package dev.supervision.herd;

import java.io.PrintStream;
import java.util.Locale;

/** Receives the state of a run while it goes on. */
public interface Progress {

  /** Ignores everything. */
  Progress NONE = (row, rows, strategy, modelMillis, recovered, cells, calls) -> {};

  /**
   * The state of the current row.
   *
   * @param row the row, 1-based
   * @param rows the number of rows
   * @param strategy the row's strategy id
   * @param modelMillis model time since the outage began
   * @param recovered cells running again
   * @param cells all cells
   * @param calls calls so far
   */
  void update(int row, int rows, String strategy, long modelMillis, int recovered, int cells, long calls);

  /**
   * A progress line. On a terminal it is rewritten in place (with a carriage return) at most five
   * times a second; elsewhere (a pipe, a CI log) one line is printed when each row ends.
   *
   * @param out where to write; usually {@code System.err}
   * @param terminal whether {@code out} is a terminal
   * @return the progress
   */
  static Progress line(PrintStream out, boolean terminal) {
    long[] lastPrint = {0};
    return (row, rows, strategy, modelMillis, recovered, cells, calls) -> {
      boolean done = recovered == cells;
      String text = String.format(Locale.ROOT, "[%d/%d] %-18s t=%6.1fs  running %,d/%,d  calls %,d",
          row, rows, strategy, modelMillis / 1000.0, recovered, cells, calls);
      if (!terminal) {
        if (done) {
          out.println(text);
        }
        return;
      }
      long now = System.nanoTime();
      if (done || now - lastPrint[0] >= 200_000_000L) {
        lastPrint[0] = now;
        out.print("\r" + text + "      ");
        if (done) {
          out.print("\r" + " ".repeat(text.length() + 6) + "\r");
        }
        out.flush();
      }
    };
  }
}
