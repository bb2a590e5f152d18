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
   * A progress line on a terminal, rewritten in place with a carriage return.
   *
   * @param out where to write; usually {@code System.err}
   * @return the progress
   */
  static Progress line(PrintStream out) {
    return (row, rows, strategy, modelMillis, recovered, cells, calls) -> {
      out.printf(Locale.ROOT, "\r[%d/%d] %-18s t=%6.1fs  running %,d/%,d  calls %,d      ",
          row, rows, strategy, modelMillis / 1000.0, recovered, cells, calls);
      if (recovered == cells) {
        out.print('\r');
        out.print(" ".repeat(100));
        out.print('\r');
      }
      out.flush();
    };
  }
}
