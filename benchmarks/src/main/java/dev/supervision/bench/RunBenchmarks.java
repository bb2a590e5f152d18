package dev.supervision.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
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
   * How long JMH measures: forks, warm-up iterations and measurement iterations of so many seconds.
   */
  private record Effort(
      String name, int forks, int warmups, int warmupSeconds, int iterations, int seconds) {

    static final Effort SHORT = new Effort("short", 1, 3, 1, 5, 1);
    static final Effort FULL = new Effort("full", 3, 5, 2, 10, 2);

    ChainedOptionsBuilder applyTo(ChainedOptionsBuilder options) {
      return options
          .forks(forks)
          .warmupIterations(warmups)
          .warmupTime(TimeValue.seconds(warmupSeconds))
          .measurementIterations(iterations)
          .measurementTime(TimeValue.seconds(seconds));
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s (%d fork%s, %d x %d s warm-up, %d x %d s)",
          name,
          forks,
          forks == 1 ? "" : "s",
          warmups,
          warmupSeconds,
          iterations,
          seconds);
    }
  }

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
    Effort effort = full ? Effort.FULL : Effort.SHORT;
    ChainedOptionsBuilder options =
        effort.applyTo(
            new OptionsBuilder()
                .include(include)
                .shouldFailOnError(true)
                .resultFormat(ResultFormatType.JSON)
                .result(json)
                .jvmArgsAppend("-Xms1g", "-Xmx1g"));
    Collection<RunResult> results = new Runner(options.build()).run();
    System.out.println();
    System.out.println("Settings: " + effort + "; JSON in " + json);
    printThroughput(
        results,
        "BacklogThroughputBenchmark.drain",
        BacklogThroughputBenchmark.BATCH,
        "Throughput of a busy actor: draining a full mailbox ("
            + BacklogThroughputBenchmark.BATCH
            + " messages + 1 reply per sample)");
    printThroughput(
        results,
        "MailboxThroughputBenchmark.tellBatch",
        MailboxThroughputBenchmark.BATCH,
        "Through the mailbox with a concurrent sender ("
            + MailboxThroughputBenchmark.BATCH
            + " tells + 1 reply per sample; sender/actor race, noisy)");
    printThroughput(
        results,
        "DirectDispatchBenchmark.interpretBatch",
        DirectDispatchBenchmark.BATCH,
        "Supervisor cost per message without mailbox ("
            + DirectDispatchBenchmark.BATCH
            + " x Behavior.interpretMessage per sample, on an idle actor's context)");
    printDelays(results);
  }

  private static void printThroughput(
      Collection<RunResult> results, String benchmark, int batch, String title) {
    // one table per value of the "throughput" parameter (the dispatcher's), if the benchmark has it
    Map<String, Map<String, RunResult>> byThroughput = new LinkedHashMap<>();
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith(benchmark)) {
        String throughput = r.getParams().getParam("throughput");
        byThroughput
            .computeIfAbsent(throughput == null ? "" : throughput, k -> new LinkedHashMap<>())
            .put(r.getParams().getParam("kind"), r);
      }
    }
    for (Map.Entry<String, Map<String, RunResult>> e : byThroughput.entrySet()) {
      printThroughputTable(
          e.getValue(),
          batch,
          e.getKey().isEmpty() ? title : title + ", dispatcher throughput " + e.getKey());
    }
  }

  private static void printThroughputTable(Map<String, RunResult> byKind, int batch, String title) {
    System.out.println();
    System.out.println(title);
    System.out.println(
        "ns per message: median of all samples; best (lowest) and worst per-iteration median; mean ± 99.9% CI.");
    System.out.println(
        "Relative throughput = base's ns / this kind's ns, by the overall median and by the best iteration");
    System.out.println(
        "(the best iteration is the one least disturbed by other processes on a busy machine).");
    System.out.printf(
        Locale.ROOT,
        "%-9s %8s %8s %8s %17s | %-17s | %-17s%n",
        "kind",
        "median",
        "best",
        "worst",
        "mean",
        "vs BARE med/best",
        "vs PEKKO med/best");
    RunResult bare = byKind.get("BARE");
    RunResult pekko = byKind.get("PEKKO");
    for (Map.Entry<String, RunResult> e : byKind.entrySet()) {
      RunResult r = e.getValue();
      double[] range = iterationMedianRange(r);
      Result<?> mean = r.getPrimaryResult();
      System.out.printf(
          Locale.ROOT,
          "%-9s %8.2f %8.2f %8.2f %8.2f ± %6.2f | %7s / %7s | %7s / %7s%n",
          e.getKey(),
          median(r) / batch,
          range[0] / batch,
          range[1] / batch,
          mean.getScore() / batch,
          err(mean) / batch,
          relative(median(bare), median(r)),
          relative(best(bare), best(r)),
          relative(median(pekko), median(r)),
          relative(best(pekko), best(r)));
    }
  }

  private static double best(RunResult r) {
    return r == null ? Double.NaN : iterationMedianRange(r)[0];
  }

  private static double median(RunResult r) {
    return r == null ? Double.NaN : r.getPrimaryResult().getStatistics().getPercentile(50.0);
  }

  private static double[] iterationMedianRange(RunResult r) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (BenchmarkResult fork : r.getBenchmarkResults()) {
      for (IterationResult it : fork.getIterationResults()) {
        double m = it.getPrimaryResult().getStatistics().getPercentile(50.0);
        lo = Math.min(lo, m);
        hi = Math.max(hi, m);
      }
    }
    return new double[] {lo, hi};
  }

  /** Throughput of a kind relative to a base, from their times per message. */
  private static String relative(double baseNanos, double nanos) {
    return Double.isNaN(baseNanos) ? "n/a" : String.format(Locale.ROOT, "%.3f", baseNanos / nanos);
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
        lines.add(
            String.format(
                Locale.ROOT,
                "%-40s %-13s %9.2f ± %.2f ns",
                b.substring(b.lastIndexOf('.', b.lastIndexOf('.') - 1) + 1),
                jitter == null ? "(pekko 0.2)" : jitter,
                r.getPrimaryResult().getScore(),
                err(r.getPrimaryResult())));
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
