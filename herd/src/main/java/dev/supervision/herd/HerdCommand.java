package dev.supervision.herd;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
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
    versionProvider = HerdCommand.Version.class,
    sortOptions = false,
    description = {
      "Thousands of cells depend on one resource; it goes down, every cell fails, and each restart"
          + " strategy is measured on how it brings the herd back to a resource of finite capacity."
    })
public final class HerdCommand implements Callable<Integer> {

  /** The option each scenario setting comes from, for error messages. */
  private static final Map<String, String> OPTIONS =
      Map.ofEntries(
          Map.entry("cells", "--cells"),
          Map.entry("outage", "--outage"),
          Map.entry("min", "--min"),
          Map.entry("max", "--max"),
          Map.entry("scale", "--scale"),
          Map.entry("strategies", "--strategies"),
          Map.entry("capacity", "--capacity"),
          Map.entry("crashFactor", "--crash-factor"),
          Map.entry("crashFor", "--crash-for"),
          Map.entry("limiter", "--limiter"),
          Map.entry("horizon", "--horizon"),
          Map.entry("nodes", "--nodes"),
          Map.entry("learner-delay", "--learner-delay"),
          Map.entry("leave-at", "--leave-at"),
          Map.entry("join-at", "--join-at"),
          Map.entry("learner-lost-at", "--learner-lost-at"),
          Map.entry("handover", "--handover"));

  @Option(
      names = {"-n", "--cells"},
      paramLabel = "N",
      description = "number of cells (default: ${DEFAULT-VALUE})")
  int cells = HerdScenario.DEFAULT_CELLS;

  @Option(
      names = "--outage",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "how long the resource is down, e.g. 2s or 1500ms (default: 2s)")
  Duration outage = Duration.ofSeconds(2);

  @Option(
      names = "--capacity",
      paramLabel = "N|unlimited",
      description =
          "calls per second the resource serves once back, enforced per 100 ms window; excess calls"
              + " fail (default: 1000; unlimited: every call succeeds once it is back)")
  String capacity = Integer.toString(HerdScenario.DEFAULT_CAPACITY);

  @Option(
      names = "--limiter",
      paramLabel = "RATE:BURST",
      description =
          "put the resource behind a rate limiter like nginx's limit_req zone rate=RATEr/s burst=BURST"
              + " nodelay (a leaky bucket on a millisecond clock; excess rejected at once; burst 0"
              + " allowed) instead of the window model; replaces --capacity and the crash settings,"
              + " e.g. --limiter 1000:0 or --limiter 200:5")
  String limiter;

  @Option(
      names = "--crash-factor",
      paramLabel = "F",
      description =
          "a 100 ms window offered more than F times its capacity knocks the resource down again;"
              + " 0 turns it off (default: ${DEFAULT-VALUE})")
  double crashFactor = 3;

  @Option(
      names = "--crash-for",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "how long a knocked-over resource stays down (default: 1s)")
  Duration crashFor = Duration.ofSeconds(1);

  @Option(
      names = "--cold",
      description =
          "the resource starts cold: 25%% of its capacity, rising linearly to 100%% over 10 s, after"
              + " the outage and after every crash")
  boolean cold;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      description =
          "exact mode: the adaptive row runs on N cluster nodes, each with the production per-node"
              + " gate, sharing the budget as --sharing says (default 1: one node, today's gate)")
  int nodes = 1;

  @Option(
      names = "--skew",
      paramLabel = "PLACEMENT",
      description =
          "how the cells are placed on the nodes: even (cell i on node i mod N, the default), half"
              + " (half on node 0, the rest even), zipf (node k in proportion to 1/(k+1))")
  ClusterSpec.Skew skew = ClusterSpec.Skew.EVEN;

  @Option(
      names = "--sharing",
      paramLabel = "HOW",
      description =
          "how the nodes share the adaptive budget: coordinated (clusterWide(), the default: one"
              + " learner leases permits to every node), split (1/N each, every node on its"
              + " fallback), local (a local adaptive budget on every node)")
  ClusterSpec.Sharing sharing = ClusterSpec.Sharing.COORDINATED;

  @Option(
      names = "--learner-delay",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "exact mode, --sharing coordinated: the one-way delay of a lease from the budget's learner"
              + " to a node and of the node's report back (default 1ms, Artery on a LAN; 0 on the"
              + " learner's own node)")
  Duration learnerDelay = ClusterSpec.LEARNER_DELAY;

  @Option(
      names = "--leave-at",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "exact mode, with --nodes: the last node leaves this long after the outage began (e.g."
              + " 4s, during the ramp); its cells that are not back move to the others, round"
              + " robin, and it is removed from the membership 1 s later")
  Duration leaveAt;

  @Option(
      names = "--join-at",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "exact mode: a new node joins this long after the outage began (e.g. 4s); 1 s later the"
              + " cells i with i mod (nodes + 1) = nodes that are not back move to it")
  Duration joinAt;

  @Option(
      names = "--learner-lost-at",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "exact mode, with --nodes: the learner's node (node 0) crashes this long after the outage"
              + " began: no lease from then, its cells call nothing until the handover ends; then"
              + " they move to the others, round robin, and a new learner starts, cold")
  Duration learnerLostAt;

  @Option(
      names = "--handover",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "with --learner-lost-at: how long after the crash the node is downed and sharding and the"
              + " learner start elsewhere (default: 25s with up to 10 nodes, 45s above, Pekko's"
              + " split brain resolver at its defaults)")
  Duration handover;

  @Option(
      names = "--horizon",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "how long after the outage a row may run before it stops and reports how far it got"
              + " (default: 3 times the time the capacity needs to serve every cell once, at least 1.25 x --max + 5s)")
  Duration horizon;

  @Option(
      names = "--min",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "minimum backoff of every backoff strategy (default: 100ms)")
  Duration min = Duration.ofMillis(100);

  @Option(
      names = "--max",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "maximum backoff of every backoff strategy (default: 20s)")
  Duration max = Duration.ofSeconds(20);

  @Option(
      names = "--scale",
      paramLabel = "FACTOR",
      description =
          "real mode: run every duration FACTOR times as long (0.5 = twice as fast); results are"
              + " reported in unscaled time (default: ${DEFAULT-VALUE})")
  double scale = 0.5;

  @Option(
      names = "--logging",
      paramLabel = "HOW",
      description =
          "real mode: how the supervisors log restarts: off, defaults (the policy's defaults, aggregated for a policy with a budget; Pekko's logging on) or unaggregated (one line per failure); the WARN and ERROR lines each row wrote are logLines in results.json (default: ${DEFAULT-VALUE})")
  String logging = "off";

  @Option(
      names = "--seed",
      paramLabel = "SEED",
      description =
          "seed of every seedable random source (Pekko's own jitter cannot be seeded) (default: ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(
      names = "--exact",
      description =
          "exact, reproducible mode: a discrete-event simulation instead of a real ActorSystem")
  boolean exact;

  @Option(
      names = "--strategies",
      paramLabel = "IDS",
      split = ",",
      description =
          "comma-separated strategy ids to run, in order, or 'all' (default: the rows marked *, and e with --exact)")
  List<String> strategies;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "DIR",
      description =
          "output folder for results.json, herd.png and the rows' logs (default: ${DEFAULT-VALUE})")
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
    CommandLine cli = new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true);
    List<String> rows = new ArrayList<>(List.of(cli.getCommandSpec().usageMessage().description()));
    rows.add(
        "Strategies (* = run by default, e = by default with --exact; r / x = real / exact mode only):");
    for (Strategies.Row row : Strategies.REGISTRY) {
      String mark =
          switch (row.byDefault()) {
            case ALWAYS -> "*";
            case EXACT -> "e";
            case NEVER -> " ";
          };
      String mode =
          switch (row.modes()) {
            case REAL -> " (r)";
            case EXACT -> " (x)";
            case BOTH -> "";
          };
      rows.add(String.format(Locale.ROOT, "  %s %-18s %s%s", mark, row.id(), row.summary(), mode));
    }
    cli.getCommandSpec().usageMessage().description(rows.toArray(new String[0]));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    cli.setParameterExceptionHandler((e, a) -> badOption(err, e.getMessage()));
    cli.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          if (e instanceof ScenarioException se) {
            return badOption(
                err, se.messageFor(OPTIONS.getOrDefault(se.parameter(), se.parameter())));
          }
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
      ids = Strategies.defaultIds(exact);
    } else if (ids.equals(List.of("all"))) {
      ids = Strategies.allIds(exact);
    }
    HerdScenario scenario = scenario(ids);
    Herd.strategies(scenario); // fails fast on a bad id, before anything runs
    boolean existed = Files.exists(out);
    stdout.println(ScenarioText.header(scenario));
    List<StrategyResult> results = Herd.run(scenario, Progress.line(stderr, terminal));
    stdout.println();
    ResultsTable.print(scenario, results, stdout);
    Path json = out.resolve("results.json");
    Path png = out.resolve("herd.png");
    ResultsJson.write(scenario, results, json);
    ResultsChart.write(scenario, results, png);
    Path logs = out.resolve("logs");
    stdout.println();
    stdout.println(
        "wrote "
            + json
            + " and "
            + png
            + (Files.isDirectory(logs) ? "; the rows' own output is in " + logs : ""));
    if (!existed) {
      RowLog.deleteIfEmpty(out);
    }
    return 0;
  }

  /** The scenario the options describe, with these strategies. */
  private HerdScenario scenario(List<String> ids) {
    ResourceSpec resource =
        limiter == null
            ? new ResourceSpec(parseCapacity(capacity), crashFactor, crashFor, cold)
            : parseLimiter(limiter, cold);
    return new HerdScenario(
            cells, outage, min, max, scale, seed, exact, ids, out, resource, horizon)
        .withCluster(
            new ClusterSpec(
                nodes, skew, sharing, learnerDelay, leaveAt, joinAt, learnerLostAt, handover))
        .withLogging(parseLogging(logging));
  }

  /**
   * The scenario of the {@code adaptive} row in exact mode that the herd's options describe (for
   * {@link RampTrace}).
   *
   * @param args the herd's options
   * @return the scenario, with {@code --exact} and the {@code adaptive} row only
   * @throws CommandLine.ParameterException for an unknown option or a value that does not parse
   * @throws ScenarioException for a value outside its rule
   */
  static HerdScenario exactAdaptive(String... args) {
    HerdCommand command = new HerdCommand();
    new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
    command.exact = true;
    return command.scenario(List.of(Strategies.ADAPTIVE_ID));
  }

  private static ResourceSpec parseLimiter(String text, boolean cold) {
    Matcher m = Pattern.compile("(\\d+):(\\d+)").matcher(text.strip().replace("_", ""));
    if (!m.matches()) {
      throw new ScenarioException("limiter", "RATE:BURST, e.g. 1000:0 or 200:5", text);
    }
    if (cold) {
      throw new ScenarioException("limiter", "without --cold (a limiter has no cold start)", text);
    }
    try {
      return ResourceSpec.limiter(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    } catch (NumberFormatException e) {
      throw new ScenarioException("limiter", "RATE:BURST with whole numbers", text);
    }
  }

  private static int parseCapacity(String text) {
    if (text.equalsIgnoreCase("unlimited")) {
      return 0;
    }
    try {
      int c = Integer.parseInt(text.strip().replace("_", ""));
      if (c < 1) {
        throw new ScenarioException("capacity", ">= 1 or 'unlimited'", text);
      }
      return c;
    } catch (NumberFormatException e) {
      throw new ScenarioException(
          "capacity", "a whole number of calls per second or 'unlimited'", text);
    }
  }

  /** Prints the project's version, from the build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = HerdCommand.class.getResourceAsStream("herd-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"herd (supervision-backoff) " + p.getProperty("version", "unknown")};
    }
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
      double nanosPerUnit =
          switch (m.group(2)) {
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

  private static HerdScenario.Logging parseLogging(String text) {
    return switch (text) {
      case "off" -> HerdScenario.Logging.OFF;
      case "defaults" -> HerdScenario.Logging.DEFAULTS;
      case "unaggregated" -> HerdScenario.Logging.UNAGGREGATED;
      default -> throw new ScenarioException("logging", "off, defaults or unaggregated", text);
    };
  }
}
