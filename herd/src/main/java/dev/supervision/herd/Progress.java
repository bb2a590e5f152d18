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
  void update(
      int row, int rows, String strategy, long modelMillis, int recovered, int cells, long calls);

  /**
   * A row has ended; nothing by default.
   *
   * @param row the row, 1-based
   * @param rows the number of rows
   * @param result the row's result
   */
  default void finished(int row, int rows, StrategyResult result) {}

  /**
   * A progress line. On a terminal it is rewritten in place (with a carriage return) at most five
   * times a second and cleared when the last row ends; elsewhere (a pipe, a CI log) one line is
   * printed when each row ends.
   *
   * @param out where to write; usually {@code System.err}
   * @param terminal whether {@code out} is a terminal
   * @return the progress
   */
  static Progress line(PrintStream out, boolean terminal) {
    return new Progress() {
      private long lastPrint;
      private int width;

      @Override
      public void update(
          int row,
          int rows,
          String strategy,
          long modelMillis,
          int recovered,
          int cells,
          long calls) {
        if (!terminal) {
          return;
        }
        long now = System.nanoTime();
        if (now - lastPrint >= 200_000_000L) {
          lastPrint = now;
          String text =
              String.format(
                  Locale.ROOT,
                  "[%d/%d] %-18s t=%6.1fs  running %,d/%,d  calls %,d",
                  row,
                  rows,
                  strategy,
                  modelMillis / 1000.0,
                  recovered,
                  cells,
                  calls);
          width = Math.max(width, text.length());
          out.print("\r" + text + " ".repeat(width - text.length()));
          out.flush();
        }
      }

      @Override
      public void finished(int row, int rows, StrategyResult r) {
        String text =
            String.format(
                Locale.ROOT,
                "[%d/%d] %s: %s (%.1f s)",
                row,
                rows,
                r.strategy(),
                ResultsTable.whatHappened(r),
                r.wallMillis() / 1000.0);
        if (terminal) {
          width = Math.max(width, text.length());
          out.print(
              "\r"
                  + (row == rows
                      ? " ".repeat(width) + "\r"
                      : text + " ".repeat(width - text.length())));
          out.flush();
        } else {
          out.println(text);
        }
      }
    };
  }
}
