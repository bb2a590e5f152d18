package dev.supervision.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks in one JMH run and prints each supervised kind's throughput as a ratio
 * to the bare behavior (and to Pekko's supervisor), plus the cost of a delay draw per jitter kind.
 *
 * <p>Usage: {@code RunBenchmarks [--full] [--include REGEX] [--json FILE]}. Short settings by
 * default (1 fork, 3 x 1 s warm-up, 5 x 1 s measurement); {@code --full}: 3 forks, 5 x 2 s warm-up,
 * 10 x 2 s measurement.
 */
public final class RunBenchmarks {

  private RunBenchmarks() {}

  /**
   * Runs the benchmarks and prints the summary.
   *
   * @param args see the class comment
   * @throws Exception if JMH fails
   */
  public static void main(String[] args) throws Exception {
    boolean full = false;
    String include = "dev\\.supervision\\.bench\\..*Benchmark";
    String json = "benchmarks/target/jmh-result.json";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--full" -> full = true;
        case "--include" -> include = args[++i];
        case "--json" -> json = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(include)
            .shouldFailOnError(true)
            .resultFormat(ResultFormatType.JSON)
            .result(json)
            .jvmArgsAppend("-Xms1g", "-Xmx1g");
    if (full) {
      options.forks(3).warmupIterations(5).warmupTime(TimeValue.seconds(2))
          .measurementIterations(10).measurementTime(TimeValue.seconds(2));
    } else {
      options.forks(1).warmupIterations(3).warmupTime(TimeValue.seconds(1))
          .measurementIterations(5).measurementTime(TimeValue.seconds(1));
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    System.out.println();
    System.out.println("Settings: " + (full ? "full (3 forks, 5 x 2 s warm-up, 10 x 2 s)" : "short (1 fork, 3 x 1 s warm-up, 5 x 1 s)")
        + "; JSON in " + json);
    printThroughput(results, "MailboxThroughputBenchmark.tellBatch",
        "Message throughput through the mailbox (" + MailboxThroughputBenchmark.BATCH + " tells + 1 reply per invocation)");
    printThroughput(results, "DirectDispatchBenchmark.interpretOne",
        "Supervisor cost per message without mailbox (Behavior.interpretMessage on an idle actor's context)");
    printDelays(results);
  }

  private static void printThroughput(Collection<RunResult> results, String benchmark, String title) {
    Map<String, Result<?>> byKind = new LinkedHashMap<>();
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith(benchmark)) {
        byKind.put(r.getParams().getParam("kind"), r.getPrimaryResult());
      }
    }
    if (byKind.isEmpty()) {
      return;
    }
    System.out.println();
    System.out.println(title);
    System.out.printf(Locale.ROOT, "%-6s %20s %10s %16s %16s%n", "kind", "msgs/us (99.9% CI)", "ns/msg", "ratio to BARE", "ratio to PEKKO");
    Result<?> bare = byKind.get("BARE");
    Result<?> pekko = byKind.get("PEKKO");
    for (Map.Entry<String, Result<?>> e : byKind.entrySet()) {
      Result<?> r = e.getValue();
      System.out.printf(Locale.ROOT, "%-6s %11.3f ± %6.3f %10.2f %16s %16s%n",
          e.getKey(), r.getScore(), err(r), 1000.0 / r.getScore(), ratio(r, bare), ratio(r, pekko));
    }
  }

  /** The ratio of two scores with its error propagated from both 99.9 % intervals (first order). */
  private static String ratio(Result<?> r, Result<?> base) {
    if (base == null) {
      return "n/a";
    }
    double q = r.getScore() / base.getScore();
    double rel = Math.sqrt(Math.pow(err(r) / r.getScore(), 2) + Math.pow(err(base) / base.getScore(), 2));
    return String.format(Locale.ROOT, "%.3f ± %.3f", q, q * rel);
  }

  private static double err(Result<?> r) {
    double e = r.getScoreError();
    return Double.isNaN(e) ? 0 : e;
  }

  private static void printDelays(Collection<RunResult> results) {
    List<String> lines = new ArrayList<>();
    for (RunResult r : results) {
      String b = r.getParams().getBenchmark();
      if (b.contains("DelayDrawBenchmark") || b.contains("PekkoDelayBenchmark")) {
        String jitter = r.getParams().getParam("jitter");
        lines.add(String.format(Locale.ROOT, "%-40s %-13s %9.2f ± %.2f ns",
            b.substring(b.lastIndexOf('.', b.lastIndexOf('.') - 1) + 1),
            jitter == null ? "(pekko 0.2)" : jitter,
            r.getPrimaryResult().getScore(), err(r.getPrimaryResult())));
      }
    }
    if (lines.isEmpty()) {
      return;
    }
    System.out.println();
    System.out.println("Cost of drawing one delay (ns/op, 99.9% CI)");
    lines.forEach(System.out::println);
  }
}
