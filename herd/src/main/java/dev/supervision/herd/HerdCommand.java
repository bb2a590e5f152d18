package dev.supervision.herd;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of the herd demo: {@code java -jar herd/target/herd.jar [options]}. Prints a
 * table, writes {@code results.json} and {@code herd.png}. Exit status 0 on success, 2 for a bad
 * option (with a one-line message on standard error), 1 for any other failure.
 */
@Command(
    name = "herd",
    mixinStandardHelpOptions = true,
    version = "supervision-backoff herd demo",
    sortOptions = false,
    description = {
      "Thousands of cells depend on one resource; it goes down, every cell fails, and each restart"
          + " strategy is measured on how hard it hits the resource as it comes back.",
      "Strategies: pekko-restart, pekko-backoff-0.0, pekko-backoff-0.2, none, equal, decorrelated, full, full+budget."
    })
public final class HerdCommand implements Callable<Integer> {

  /** The default strategies, in order; in exact mode those without an exact model are left out. */
  static final List<String> DEFAULT_STRATEGIES =
      List.of("pekko-restart", "pekko-backoff-0.0", "pekko-backoff-0.2", "none", "equal", "decorrelated", "full",
          Strategies.BUDGET_ID);

  @Option(names = {"-n", "--cells"}, paramLabel = "N", description = "number of cells (default: ${DEFAULT-VALUE})")
  int cells = HerdScenario.DEFAULT_CELLS;

  @Option(names = "--outage", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "how long the resource is down, e.g. 2s or 1500ms (default: 2s)")
  Duration outage = Duration.ofSeconds(2);

  @Option(names = "--min", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "minimum backoff of every backoff strategy (default: 100ms)")
  Duration min = Duration.ofMillis(100);

  @Option(names = "--max", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "maximum backoff of every backoff strategy (default: 20s)")
  Duration max = Duration.ofSeconds(20);

  @Option(names = "--scale", paramLabel = "FACTOR",
      description = "real mode: run every duration FACTOR times as long (0.5 = twice as fast); results are"
          + " reported in unscaled time (default: ${DEFAULT-VALUE})")
  double scale = 0.5;

  @Option(names = "--seed", paramLabel = "SEED",
      description = "seed of every seedable random source (Pekko's own jitter cannot be seeded) (default: ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(names = "--exact",
      description = "exact, reproducible mode: a discrete-event simulation instead of a real ActorSystem")
  boolean exact;

  @Option(names = "--strategies", paramLabel = "IDS", split = ",",
      description = "comma-separated strategy ids to run, in order (default: all; in --exact mode all but pekko-restart)")
  List<String> strategies;

  @Option(names = {"-o", "--out"}, paramLabel = "DIR",
      description = "output folder for results.json and herd.png (default: ${DEFAULT-VALUE})")
  Path out = Path.of("target", "herd");

  private boolean terminal;
  private PrintStream stdout = System.out;
  private PrintStream stderr = System.err;

  /**
   * Runs the demo and exits with its status.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the demo.
   *
   * @param args the command line
   * @param out where the table goes
   * @param err where progress and errors go
   * @return the exit status: 0 on success, 2 for a bad option, 1 for another failure
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    System.setProperty("java.awt.headless", "true");
    HerdCommand command = new HerdCommand();
    command.stdout = out;
    command.stderr = err;
    command.terminal = err == System.err && System.console() != null;
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    cli.setParameterExceptionHandler((e, a) -> badOption(err, e.getMessage()));
    cli.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          if (e instanceof IllegalArgumentException) {
            return badOption(err, e.getMessage());
          }
          throw e;
        });
    return cli.execute(args);
  }

  private static int badOption(PrintStream err, String message) {
    err.println("herd: " + message.replace('\n', ' ').strip() + " (see --help)");
    return 2;
  }

  @Override
  public Integer call() throws IOException {
    List<String> ids = strategies;
    if (ids == null) {
      ids = new ArrayList<>(DEFAULT_STRATEGIES);
      if (exact) {
        ids.remove("pekko-restart");
      }
    }
    HerdScenario scenario = new HerdScenario(cells, outage, min, max, scale, seed, exact, ids, out);
    Herd.strategies(scenario); // fails fast on a bad id, before anything runs
    stdout.printf(Locale.ROOT, "herd: %,d cells, resource down for %d ms, backoff %d ms .. %d ms, %s%n",
        scenario.cells(), scenario.outage().toMillis(), scenario.minBackoff().toMillis(),
        scenario.maxBackoff().toMillis(),
        exact ? "exact mode (discrete-event), seed " + seed
            : "real ActorSystem, real time" + (scale == 1.0 ? "" : " scaled by " + scale
                + " (all durations run " + scale + "x as long; results in unscaled ms)") + ", seed " + seed);
    List<StrategyResult> results = Herd.run(scenario, Progress.line(stderr, terminal));
    Report.printTable(scenario, results, stdout);
    Path json = out.resolve("results.json");
    Path png = out.resolve("herd.png");
    Report.writeJson(scenario, results, json);
    Report.writeChart(scenario, results, png);
    stdout.println("wrote " + json + " and " + png);
    return 0;
  }

  /** Parses {@code 2s}, {@code 1500ms}, {@code 1.5s} or {@code 1m}. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

    @Override
    public Duration convert(String value) {
      Matcher m = FORMAT.matcher(value.trim().toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration; write a number and a unit: 100ms, 2s, 1.5s or 1m");
      }
      double amount = Double.parseDouble(m.group(1));
      double nanosPerUnit = switch (m.group(2)) {
        case "ms" -> 1e6;
        case "s" -> 1e9;
        default -> 60e9;
      };
      double nanos = amount * nanosPerUnit;
      if (nanos > Duration.ofDays(1).toNanos()) {
        throw new CommandLine.TypeConversionException("'" + value + "' is longer than a day");
      }
      return Duration.ofNanos(Math.round(nanos));
    }
  }
}
