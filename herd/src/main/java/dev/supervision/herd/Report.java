package dev.supervision.herd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Writes a run's results: the table, {@code results.json} and {@code herd.png}. */
public final class Report {

  /** Fixed colours for the standard strategies; others get JFreeChart's palette. */
  private static final Map<String, Color> COLORS = Map.of(
      "pekko-restart", Color.GRAY,
      "pekko-backoff-0.0", new Color(0x8B, 0x00, 0x00),
      "pekko-backoff-0.2", new Color(0xE0, 0x7B, 0x00),
      "none", new Color(0xD6, 0x27, 0x28),
      "equal", new Color(0x94, 0x67, 0xBD),
      "decorrelated", new Color(0x2C, 0xA0, 0x2C),
      "full", new Color(0x1F, 0x4E, 0xC8),
      Strategies.BUDGET_ID, new Color(0x00, 0x99, 0x99));

  private Report() {}

  /**
   * The scenario's parameters as they appear in {@code results.json}.
   *
   * @param s the scenario
   * @return the parameters, in a stable order
   */
  public static Map<String, Object> parameters(HerdScenario s) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("mode", s.exact() ? "exact" : "real");
    p.put("cells", s.cells());
    p.put("outageMs", s.outage().toMillis());
    p.put("minBackoffMs", s.minBackoff().toMillis());
    p.put("maxBackoffMs", s.maxBackoff().toMillis());
    p.put("scale", s.exact() ? null : s.scale());
    p.put("seed", s.seed());
    p.put("strategies", s.strategies());
    p.put("windowMs", CallTrace.WINDOW_MS);
    p.put("availableProcessors", Runtime.getRuntime().availableProcessors());
    p.put("java", System.getProperty("java.version"));
    return p;
  }

  /**
   * Prints the table.
   *
   * @param s the scenario
   * @param results the results
   * @param out where to print
   */
  public static void printTable(HerdScenario s, List<StrategyResult> results, PrintStream out) {
    out.printf(Locale.ROOT, "%-20s %12s %12s %10s %10s %9s %9s %9s%n",
        "strategy", "calls", "in outage", "peak/s", "max in 1s", "p50 ms", "p99 ms", "100% ms");
    for (StrategyResult r : results) {
      out.printf(Locale.ROOT, "%-20s %,12d %,12d %,10d %,10d %9s %9s %9s%s%n",
          r.strategy(), r.calls(), r.callsDuringOutage(), r.recoveryPeakPerSecond(), r.busiestSecondAfterOutage(),
          ms(r.p50RecoveredMs()), ms(r.p99RecoveredMs()), ms(r.allRecoveredMs()),
          r.allRecovered() ? "" : String.format(Locale.ROOT, "  (%,d of %,d recovered: %s)",
              r.recovered(), r.cells(), r.outcome()));
    }
    Optional<StrategyResult> full = find(results, "full");
    if (full.isPresent() && full.get().recoveryPeakPerSecond() > 0) {
      StringBuilder ratios = new StringBuilder("full jitter's recovery peak is");
      boolean any = false;
      for (StrategyResult other : results) {
        if (other != full.get() && other.recoveryPeakPerSecond() > 0 && !other.strategy().equals(Strategies.BUDGET_ID)) {
          ratios.append(any ? "," : "").append(String.format(Locale.ROOT, " 1/%.1f of %s",
              (double) other.recoveryPeakPerSecond() / full.get().recoveryPeakPerSecond(), other.strategy()));
          any = true;
        }
      }
      if (any) {
        out.println(ratios);
      }
    }
    Optional<StrategyResult> budgeted = find(results, Strategies.BUDGET_ID);
    if (budgeted.isPresent()) {
      long limit = Strategies.BUDGET_PER_SECOND + Strategies.budget().getBurst();
      out.printf(Locale.ROOT, "%s: busiest second after the outage had %,d calls; the budget allows %,d"
              + " (%d/s + burst %d): %s%n",
          Strategies.BUDGET_ID, budgeted.get().busiestSecondAfterOutage(), limit, Strategies.BUDGET_PER_SECOND,
          Strategies.budget().getBurst(),
          budgeted.get().busiestSecondAfterOutage() <= limit && budgeted.get().allRecovered() ? "held, all recovered" : "NOT MET");
    }
  }

  /**
   * Looks a result up by strategy id.
   *
   * @param results the results
   * @param id a strategy id
   * @return the result, if that strategy ran
   */
  public static Optional<StrategyResult> find(List<StrategyResult> results, String id) {
    return results.stream().filter(r -> r.strategy().equals(id)).findFirst();
  }

  private static String ms(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.0f", v);
  }

  /**
   * Writes {@code results.json}: {@code {"scenario": {...}, "results": [{...}, ...]}}.
   *
   * @param s the scenario
   * @param results the results
   * @param file the file
   * @throws IOException if it cannot be written
   */
  public static void writeJson(HerdScenario s, List<StrategyResult> results, Path file) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("scenario", parameters(s));
    root.put("results", results);
    Files.createDirectories(file.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }

  /**
   * Draws {@code herd.png}: calls per 100 ms over time, one line per strategy. The y axis stops a
   * little above the highest recovery-phase window; lines that go higher (Pekko's immediate restart
   * spinning during the outage) are clipped, and the subtitle says by how much.
   *
   * @param s the scenario
   * @param results the results
   * @param file the file
   * @throws IOException if it cannot be written
   */
  public static void writeChart(HerdScenario s, List<StrategyResult> results, Path file) throws IOException {
    XYSeriesCollection data = new XYSeriesCollection();
    // The first window is the strike itself (every cell fails at once) plus the quickest restarts;
    // it would flatten everything else, so the axis is fitted to the windows after it.
    long yTop = 1;
    long firstWindow = 0;
    for (StrategyResult r : results) {
      XYSeries series = new XYSeries(r.strategy() + ": " + r.description(), false, true);
      long[] w = r.callsPer100ms();
      for (int i = 0; i < w.length; i++) {
        series.add(i * CallTrace.WINDOW_MS / 1000.0, w[i]);
        if (i > 0) {
          yTop = Math.max(yTop, w[i]);
        }
      }
      series.add(w.length * CallTrace.WINDOW_MS / 1000.0, 0);
      data.addSeries(series);
      firstWindow = Math.max(firstWindow, w.length > 0 ? w[0] : 0);
    }
    String clipped = firstWindow > yTop * 1.1
        ? String.format(Locale.ROOT, "the first 100 ms (every cell failing at once) reach up to %,d calls and are cut off",
            firstWindow)
        : "";
    String title = String.format(Locale.ROOT,
        "%,d cells, resource down for %d ms; backoff %d ms .. %d ms (%s)",
        s.cells(), s.outage().toMillis(), s.minBackoff().toMillis(), s.maxBackoff().toMillis(),
        s.exact() ? "exact mode, seed " + s.seed()
            : "real time" + (s.scale() == 1.0 ? "" : " scaled by " + s.scale()) + ", seed " + s.seed());
    JFreeChart chart = org.jfree.chart.ChartFactory.createXYLineChart(
        "Calls to the resource per 100 ms", "seconds since the outage began", "calls per 100 ms",
        data, PlotOrientation.VERTICAL, true, false, false);
    chart.addSubtitle(new TextTitle(title, new Font(Font.SANS_SERIF, Font.PLAIN, 13)));
    if (!clipped.isEmpty()) {
      chart.addSubtitle(new TextTitle(clipped, new Font(Font.SANS_SERIF, Font.ITALIC, 12)));
    }
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    NumberAxis y = (NumberAxis) plot.getRangeAxis();
    y.setRange(0, yTop * 1.1);
    ValueMarker back = new ValueMarker(s.outage().toMillis() / 1000.0, Color.DARK_GRAY, new BasicStroke(1.5f));
    back.setLabel("resource back");
    back.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    back.setLabelOffset(new org.jfree.chart.ui.RectangleInsets(10, 40, 10, 10));
    plot.addDomainMarker(back);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
    for (int i = 0; i < results.size(); i++) {
      String id = results.get(i).strategy();
      Color color = COLORS.get(id);
      if (color != null) {
        renderer.setSeriesPaint(i, color);
      }
      float width = id.equals("full") ? 3f : 1.5f;
      // Pekko's strategies dashed, ours solid: none and pekko-backoff-0.0 share one schedule
      renderer.setSeriesStroke(i, id.startsWith("pekko-")
          ? new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
          : new BasicStroke(width));
    }
    plot.setRenderer(renderer);
    Files.createDirectories(file.toAbsolutePath().getParent());
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, 700);
  }
}
