package dev.supervision.herd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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

/** Writes a run's results: the header, the table, {@code results.json} and {@code herd.png}. */
public final class Report {

  /** Where the write-up of Pekko's recursion lives, for the table's note. */
  static final String STACK_OVERFLOW_DOC = "docs/upstream-restart-stackoverflow.md";

  private Report() {}

  /**
   * The first line of the output: the scenario in words.
   *
   * @param s the scenario
   * @return one line
   */
  public static String header(HerdScenario s) {
    return "herd: "
        + resourceInWords(s)
        + "\n      backoff "
        + seconds(s.minBackoff().toMillis())
        + " .. "
        + seconds(s.maxBackoff().toMillis())
        + "; "
        + (s.exact()
            ? "exact mode (discrete-event), seed "
                + s.seed()
                + (s.cluster().nodes() > 1 || s.cluster().joinAt() != null
                    ? "; adaptive row on " + s.cluster().describe()
                    : "")
            : "real ActorSystem"
                + (s.scale() == 1.0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        " at %sx speed (times below are unscaled)",
                        fmt(1 / s.scale())))
                + ", seed "
                + s.seed());
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.2f", d);
  }

  private static String resourceInWords(HerdScenario s) {
    ResourceSpec r = s.resource();
    String resource =
        r.limited()
            ? String.format(
                Locale.ROOT,
                "then sits behind a rate limiter of %,d requests/s, burst %d (nginx limit_req"
                    + " nodelay)",
                r.capacityPerSecond(),
                r.limiterBurst())
            : r.unlimited()
                ? "then serves every call"
                : String.format(
                    Locale.ROOT,
                    "then serves %,d calls/s%s%s",
                    r.capacityPerSecond(),
                    r.cold() ? " from cold (25 % to 100 % in 10 s)" : "",
                    r.crashFactor() > 0
                        ? String.format(
                            Locale.ROOT,
                            " (> %sx that in 100 ms knocks it over for %s)",
                            fmt(r.crashFactor()),
                            seconds(r.crashFor().toMillis()))
                        : "");
    return String.format(
        Locale.ROOT,
        "%,d actors; the resource is down for %s, %s",
        s.cells(),
        seconds(s.outage().toMillis()),
        resource);
  }

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
    p.put("capacityPerSecond", s.resource().unlimited() ? null : s.resource().capacityPerSecond());
    p.put("cold", s.resource().cold());
    p.put("limiterBurst", s.resource().limited() ? s.resource().limiterBurst() : null);
    p.put("crashFactor", s.resource().unlimited() ? null : s.resource().crashFactor());
    p.put("crashForMs", s.resource().unlimited() ? null : s.resource().crashFor().toMillis());
    p.put("physicalLimitMs", s.resource().unlimited() ? null : s.physicalLimit().toMillis());
    p.put("horizonMs", s.horizonAfterOutage() == null ? null : s.horizonAfterOutage().toMillis());
    p.put("minBackoffMs", s.minBackoff().toMillis());
    p.put("maxBackoffMs", s.maxBackoff().toMillis());
    p.put("scale", s.exact() ? null : s.scale());
    p.put("seed", s.seed());
    p.put("logging", s.logging().name().toLowerCase(Locale.ROOT));
    p.put("nodes", s.cluster().nodes());
    p.put("placement", s.cluster().skew().name().toLowerCase(Locale.ROOT));
    p.put("sharing", s.cluster().sharing().name().toLowerCase(Locale.ROOT));
    p.put("deltaIntervalMs", s.cluster().deltaInterval().toMillis());
    p.put("leaveAtMs", s.cluster().leaveAt() == null ? null : s.cluster().leaveAt().toMillis());
    p.put("joinAtMs", s.cluster().joinAt() == null ? null : s.cluster().joinAt().toMillis());
    p.put("strategies", s.strategies());
    p.put("windowMs", CallTrace.WINDOW_MS);
    p.put("availableProcessors", Runtime.getRuntime().availableProcessors());
    p.put("java", System.getProperty("java.version"));
    return p;
  }

  /**
   * What happened to a row, in one short line.
   *
   * @param r the row's result
   * @return for example {@code all recovered} or {@code horizon (30 s), 63.0 % back}
   */
  static String whatHappened(StrategyResult r) {
    if (r.allRecovered()) {
      return r.outcome();
    }
    return r.outcome()
        + String.format(Locale.ROOT, ", %.1f %% back", Math.floor(1000 * r.recoveredShare()) / 10);
  }

  /**
   * Prints the table and the conclusions under it.
   *
   * @param s the scenario
   * @param results the results
   * @param out where to print
   */
  public static void printTable(HerdScenario s, List<StrategyResult> results, PrintStream out) {
    boolean finite = !s.resource().unlimited();
    double limitMs = s.physicalLimit().toMillis();
    out.printf(
        Locale.ROOT,
        "%-18s %9s %9s %9s %7s %8s %8s %6s %6s %6s %6s  %s%n",
        "strategy",
        "calls",
        "in outage",
        "failed",
        "crashes",
        "peak/s",
        "max 1s",
        "p50 s",
        "p99 s",
        "all s",
        finite ? "x N/C" : "",
        "what happened");
    for (StrategyResult r : results) {
      out.printf(
          Locale.ROOT,
          "%-18s %,9d %,9d %,9d %7d %,8d %,8d %6s %6s %6s %6s  %s%n",
          r.strategy(),
          r.calls(),
          r.callsDuringOutage(),
          r.failedCallsAfterOutage(),
          r.resourceCrashes(),
          r.recoveryPeakPerSecond(),
          r.busiestSecondAfterOutage(),
          sec(r.p50RecoveredMs()),
          sec(r.p99RecoveredMs()),
          sec(r.allRecoveredMs()),
          finite && r.allRecoveredMs() != null && limitMs > 0
              ? String.format(Locale.ROOT, "%.2f", r.allRecoveredMs() / limitMs)
              : finite ? "-" : "",
          whatHappened(r));
    }
    out.println(
        "(in outage: restarts while the resource was down; failed: calls that failed after it was back;"
            + " crashes: times it was knocked over again;");
    out.println(
        " peak/s: busiest 100 ms after the outage x 10; max 1s: busiest second after it; p50/p99/all s: when"
            + " that share of cells ran again"
            + (finite ? "; x N/C: all s / N/C)" : ")"));
    out.println();
    for (String line : conclusions(s, results)) {
      out.println(line);
    }
  }

  /**
   * The lines under the table: what the table shows, in words.
   *
   * @param s the scenario
   * @param results the results
   * @return the lines
   */
  static List<String> conclusions(HerdScenario s, List<StrategyResult> results) {
    List<String> lines = new ArrayList<>();
    if (!s.resource().unlimited()) {
      long limit = s.physicalLimit().toMillis();
      lines.add(
          String.format(
              Locale.ROOT,
              "N/C: the resource needs %.1f s to serve %,d cells once at %,d/s%s;"
                  + " 'x N/C' is each row's time to bring every cell back, in those units.",
              limit / 1000.0,
              s.cells(),
              s.resource().capacityPerSecond(),
              s.resource().cold() ? " from cold" : ""));
      StringBuilder calm = new StringBuilder();
      for (StrategyResult r : results) {
        if (r.allRecovered() && r.resourceCrashes() == 0) {
          calm.append(calm.length() == 0 ? "" : ", ")
              .append(r.strategy())
              .append(
                  String.format(
                      Locale.ROOT, " (%.2f x N/C)", r.allRecoveredMs() / Math.max(1.0, limit)));
        }
      }
      lines.add(
          calm.length() == 0
              ? "No row brought every cell back without knocking the resource over again."
              : "Every cell back without knocking the resource over again: " + calm + ".");
    }
    Optional<StrategyResult> full = find(results, "full");
    Optional<StrategyResult> pekko = find(results, "pekko-backoff-0.2");
    Optional<StrategyResult> none = find(results, "none");
    if (full.isPresent() && full.get().recoveryPeakPerSecond() > 0) {
      for (Optional<StrategyResult> other : List.of(pekko, none)) {
        if (other.isPresent() && other.get().recoveryPeakPerSecond() > 0) {
          double ratio =
              (double) other.get().recoveryPeakPerSecond() / full.get().recoveryPeakPerSecond();
          lines.add(
              String.format(
                  Locale.ROOT,
                  "Recovery peak, full jitter against %s: %,d/s against %,d/s (%s).",
                  other.get().strategy(),
                  full.get().recoveryPeakPerSecond(),
                  other.get().recoveryPeakPerSecond(),
                  ratio >= 1
                      ? String.format(Locale.ROOT, "1/%.1f", ratio)
                      : String.format(Locale.ROOT, "%.1fx", 1 / ratio)));
        }
      }
    }
    Optional<StrategyResult> budgeted = find(results, Strategies.BUDGET_ID);
    if (budgeted.isPresent()) {
      long limit = Strategies.BUDGET_PER_SECOND + Strategies.budget().getBurst();
      lines.add(
          String.format(
              Locale.ROOT,
              "%s: at most %,d calls in any second after the outage; the budget allows %,d"
                  + " (%d/s + burst %d).",
              Strategies.BUDGET_ID,
              budgeted.get().busiestSecondAfterOutage(),
              limit,
              Strategies.BUDGET_PER_SECOND,
              Strategies.budget().getBurst()));
    }
    for (StrategyResult r : results) {
      if (r.outcome().contains("StackOverflowError")) {
        lines.add(
            r.strategy()
                + ": Pekko's restart() re-runs a failing setup recursively until the stack overflows;"
                + " see "
                + STACK_OVERFLOW_DOC
                + ".");
      }
    }
    return lines;
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

  private static String sec(Double ms) {
    return ms == null ? "-" : String.format(Locale.ROOT, "%.1f", ms / 1000.0);
  }

  /**
   * Writes {@code results.json}: {@code {"scenario": {...}, "results": [{...}, ...]}}.
   *
   * @param s the scenario
   * @param results the results
   * @param file the file
   * @throws IOException if it cannot be written
   */
  public static void writeJson(HerdScenario s, List<StrategyResult> results, Path file)
      throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("scenario", parameters(s));
    root.put("results", results);
    Files.createDirectories(file.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }

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
  public static void writeChart(HerdScenario s, List<StrategyResult> results, Path file)
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
    return resourceInWords(s)
        + "; backoff "
        + seconds(s.minBackoff().toMillis())
        + " .. "
        + seconds(s.maxBackoff().toMillis())
        + "; "
        + (s.exact() ? "exact mode, seed " + s.seed() : "real ActorSystem");
  }

  private static String seconds(long ms) {
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
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
            : whatHappened(r);
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
