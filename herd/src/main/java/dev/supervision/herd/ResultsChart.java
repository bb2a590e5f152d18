package dev.supervision.herd;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYAreaRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Draws {@code herd.png}: one panel per row, on shared scales. */
public final class ResultsChart {

  private ResultsChart() {}

  private static final int PANEL_WIDTH = 700;
  private static final int PANEL_HEIGHT = 250;
  private static final int HEADER_HEIGHT = 90;

  /**
   * Draws {@code herd.png}: one small panel per row, all on the same scales (seconds since the
   * outage began; calls per second in 100 ms windows), with the resource's return, its capacity and
   * the times it was knocked over again marked in each. Values above the shared y range are cut off
   * and the panel says how high they went.
   *
   * @param s the scenario
   * @param results the results
   * @param file the file
   * @throws IOException if it cannot be written
   */
  public static void write(HerdScenario s, List<StrategyResult> results, Path file)
      throws IOException {
    int columns = results.size() <= 3 ? 1 : 2;
    int rows = (results.size() + columns - 1) / columns;
    int panelWidth = PANEL_WIDTH * 2 / columns;
    int width = PANEL_WIDTH * 2;
    int height = HEADER_HEIGHT + PANEL_HEIGHT * rows;
    double capacity = s.resource().unlimited() ? 0 : s.resource().capacityPerSecond();
    // shared scales
    double xMax = 1;
    double yRecoveryMax = 1;
    for (StrategyResult r : results) {
      long[] w = r.callsPer100ms();
      xMax = Math.max(xMax, w.length * CallTrace.WINDOW_MS / 1000.0);
      for (int i = 1; i < w.length; i++) {
        yRecoveryMax = Math.max(yRecoveryMax, w[i] * 10.0);
      }
    }
    double yTop =
        capacity > 0
            ? capacity * (s.resource().crashFactor() > 0 ? s.resource().crashFactor() + 1 : 4)
            : yRecoveryMax * 1.1;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 22));
      g.drawString(
          s.resource().limited()
              ? String.format(
                  Locale.ROOT,
                  "Bringing %,d actors back through a rate limiter of %,d requests/s, burst %d",
                  s.cells(),
                  (long) capacity,
                  s.resource().limiterBurst())
              : capacity > 0
                  ? "Bringing "
                      + String.format(Locale.ROOT, "%,d", s.cells())
                      + " actors back to a resource that serves "
                      + String.format(Locale.ROOT, "%,d", (long) capacity)
                      + " calls/s"
                  : "Calls to the resource per second, "
                      + String.format(Locale.ROOT, "%,d", s.cells())
                      + " actors",
          16,
          30);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
      g.drawString(chartSubtitle(s), 16, 55);
      g.drawString(
          "Each panel: calls per second ("
              + bin(s) * CallTrace.WINDOW_MS
              + " ms windows"
              + (bin(s) > 1 ? ", the resource's window in real mode" : "")
              + "), same scales. Grey line: resource back;"
              + (s.resource().limited()
                  ? " dashed: the limiter's rate; excess requests are rejected at once."
                  : capacity > 0
                      ? " dashed: capacity"
                          + (s.resource().cold() ? " (when warm)" : "")
                          + "; red bands: knocked over again."
                      : ""),
          16,
          78);
      for (int i = 0; i < results.size(); i++) {
        JFreeChart chart = panel(s, results.get(i), xMax, yTop, capacity);
        int col = i % columns;
        int row = i / columns;
        chart.draw(
            g,
            new Rectangle2D.Double(
                col * panelWidth, HEADER_HEIGHT + row * PANEL_HEIGHT, panelWidth, PANEL_HEIGHT));
      }
    } finally {
      g.dispose();
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    ImageIO.write(image, "png", file.toFile());
  }

  private static String chartSubtitle(HerdScenario s) {
    return ScenarioText.resourceInWords(s)
        + "; backoff "
        + ScenarioText.seconds(s.minBackoff().toMillis())
        + " .. "
        + ScenarioText.seconds(s.maxBackoff().toMillis())
        + "; "
        + (s.exact() ? "exact mode, seed " + s.seed() : "real ActorSystem");
  }

  private static JFreeChart panel(
      HerdScenario s, StrategyResult r, double xMax, double yTop, double capacity) {
    XYSeries series = new XYSeries(r.strategy(), false, true);
    long[] w = r.callsPer100ms();
    int bin = bin(s);
    double binSeconds = bin * CallTrace.WINDOW_MS / 1000.0;
    long peak = 0;
    double peakAt = 0;
    long outageMs = s.outage().toMillis();
    for (int i = 0; i < w.length; i += bin) {
      long sum = 0;
      for (int j = i; j < Math.min(w.length, i + bin); j++) {
        sum += w[j];
      }
      double x = i * CallTrace.WINDOW_MS / 1000.0;
      double perSecond = sum / binSeconds;
      series.add(x, perSecond);
      series.add(x + binSeconds - 1e-6, perSecond);
      if ((long) i * CallTrace.WINDOW_MS >= outageMs && perSecond > peak) {
        peak = Math.round(perSecond);
        peakAt = x;
      }
    }
    XYPlot plot =
        new XYPlot(
            new XYSeriesCollection(series),
            axis("seconds since the outage began", 0, xMax),
            axis("calls/s", 0, yTop),
            new XYAreaRenderer(XYAreaRenderer.AREA));
    Color color = Strategies.color(r.strategy());
    plot.getRenderer().setSeriesPaint(0, color == null ? Color.BLUE : color);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xE0, 0xE0, 0xE0));
    plot.setRangeGridlinePaint(new Color(0xE0, 0xE0, 0xE0));
    plot.setDomainGridlinesVisible(true);
    plot.setRangeGridlinesVisible(true);
    for (long crash : r.crashTimesMs()) {
      IntervalMarker down =
          new IntervalMarker(
              crash / 1000.0,
              (crash + s.resource().crashFor().toMillis()) / 1000.0,
              new Color(0xFF, 0x00, 0x00, 0x40));
      plot.addDomainMarker(down, Layer.BACKGROUND);
    }
    plot.addDomainMarker(
        new IntervalMarker(0, s.outage().toMillis() / 1000.0, new Color(0xEE, 0xEE, 0xEE)),
        Layer.BACKGROUND);
    ValueMarker back =
        new ValueMarker(s.outage().toMillis() / 1000.0, Color.DARK_GRAY, new BasicStroke(1.5f));
    plot.addDomainMarker(back);
    if (capacity > 0) {
      ValueMarker cap =
          new ValueMarker(
              capacity,
              Color.BLACK,
              new BasicStroke(
                  1.5f,
                  BasicStroke.CAP_BUTT,
                  BasicStroke.JOIN_MITER,
                  10f,
                  new float[] {6f, 4f},
                  0f));
      cap.setLabel(
          (s.resource().limited() ? "limiter " : "capacity ")
              + String.format(Locale.ROOT, "%,d/s", (long) capacity));
      cap.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      cap.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      cap.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
      plot.addRangeMarker(cap);
    }
    if (peak > yTop) {
      XYTextAnnotation note =
          new XYTextAnnotation(
              String.format(Locale.ROOT, "\u2191 up to %,d/s after the outage", peak),
              Math.min(peakAt, xMax * 0.6),
              yTop * 0.9);
      note.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
      note.setTextAnchor(TextAnchor.CENTER_LEFT);
      note.setBackgroundPaint(new Color(255, 255, 255, 220));
      plot.addAnnotation(note);
    }
    JFreeChart chart = new JFreeChart(null, new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    TextTitle title =
        new TextTitle(
            r.strategy() + ": " + r.description(), new Font(Font.SANS_SERIF, Font.BOLD, 14));
    title.setPaint(color == null ? Color.BLACK : color.darker());
    chart.addSubtitle(title);
    TextTitle summary =
        new TextTitle(panelSummary(s, r), new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    chart.addSubtitle(summary);
    chart.setPadding(new RectangleInsets(4, 4, 4, 8));
    return chart;
  }

  /** How many 100 ms windows one bar of the chart spans: the resource's window (100 ms of real time). */
  private static int bin(HerdScenario s) {
    return s.exact() ? 1 : (int) Math.max(1, Math.round(1 / s.scale()));
  }

  private static String panelSummary(HerdScenario s, StrategyResult r) {
    double limit = s.physicalLimit().toMillis();
    String time =
        r.allRecovered()
            ? String.format(
                Locale.ROOT,
                "all back %.1f s after the outage%s",
                r.allRecoveredMs() / 1000.0,
                limit > 0
                    ? String.format(Locale.ROOT, " (%.2f x N/C)", r.allRecoveredMs() / limit)
                    : "")
            : ResultsTable.whatHappened(r);
    return String.format(
        Locale.ROOT,
        "%s; knocked over %d times; %,d failed calls after the outage",
        time,
        r.resourceCrashes(),
        r.failedCallsAfterOutage());
  }

  private static NumberAxis axis(String label, double from, double to) {
    NumberAxis axis = new NumberAxis(label);
    axis.setRange(from, to);
    axis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    axis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    return axis;
  }
}
