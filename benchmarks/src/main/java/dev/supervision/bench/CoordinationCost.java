package dev.supervision.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.spi.AdaptiveRateController.State;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.LWWMap;
import org.apache.pekko.cluster.ddata.LWWMapKey;
import org.apache.pekko.cluster.ddata.typed.javadsl.DistributedData;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * What the coordination of one cluster-wide adaptive budget costs: N actor systems in this JVM
 * form a real Pekko Cluster over Artery TCP on 127.0.0.1, and one {@code
 * RestartBudget.adaptive(..).clusterWide()} budget goes through its states while every message
 * Artery sends is counted with its size ({@link RemoteTraffic}, an Artery {@code
 * RemoteInstrument}) and the CPU time of the actor systems' threads is read from the {@link
 * ThreadMXBean}. Phases, each measured over the same window:
 *
 * <ol>
 *   <li>{@code cluster}: the cluster alone, no budget (its heartbeats and gossip);
 *   <li>{@code idle}: the budget's gate (and its coordination) started on every node, nothing
 *       fails: each node has written its first, quiet line;
 *   <li>{@code holding}: the resource is down and every node has actors waiting: every node holds;
 *   <li>{@code ramp}: the resource is back with a finite capacity and many actors still wait: the
 *       nodes ramp.
 * </ol>
 *
 * <p>Per node and second it prints the messages and bytes sent, by kind (the coordination's
 * Distributed Data messages, the cluster's heartbeats and gossip, Artery's own control messages),
 * the top message classes, and the CPU. All systems share one name (a cluster needs it), so the CPU
 * is the sum over every thread whose name starts with it, divided by N: the mean node.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xmx6g -cp benchmarks/target/benchmarks.jar dev.supervision.bench.CoordinationCost \
 *     [nodes=10] [window-seconds=20] [capacity-per-second=200]
 * </pre>
 *
 * Pekko's defaults for everything that decides the traffic (cluster gossip every 1 s, heartbeats
 * every 1 s to 9 monitors, Distributed Data gossip every 2 s, deltas every 400 ms); smaller thread
 * pools and queues so that many systems fit in one JVM (see {@link #config()}).
 */
public final class CoordinationCost {

  static final String SYSTEM = "cost";
  static final String BUDGET_NAME = "cost-db";
  static final RestartBudget BUDGET = RestartBudget.adaptive(BUDGET_NAME).clusterWide();

  private static final AtomicBoolean up = new AtomicBoolean();
  private static final AtomicLong windowStart = new AtomicLong();
  private static final AtomicInteger inWindow = new AtomicInteger();
  private static final AtomicInteger recovered = new AtomicInteger();
  private static volatile int capacityPer100ms = 20;

  private CoordinationCost() {}

  /** The resource: down, or up with a capacity per 100 ms of real time. */
  static boolean call() {
    if (!up.get()) {
      return false;
    }
    long window = System.nanoTime() / 100_000_000L;
    long seen = windowStart.get();
    if (window != seen && windowStart.compareAndSet(seen, window)) {
      inWindow.set(0);
    }
    return inWindow.incrementAndGet() <= capacityPer100ms;
  }

  static Behavior<Void> cell() {
    return Behaviors.setup(
        ctx -> {
          if (!call()) {
            throw new IllegalStateException("resource unavailable");
          }
          recovered.incrementAndGet();
          return Behaviors.empty();
        });
  }

  static Config config() {
    return ConfigFactory.parseString(
            String.join(
                "\n",
                "pekko.loglevel = WARNING",
                "pekko.log-dead-letters = off",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.canonical.hostname = 127.0.0.1",
                "pekko.remote.artery.canonical.port = 0",
                "pekko.remote.artery.advanced.instruments = [\""
                    + RemoteTraffic.class.getName()
                    + "\"]",
                // many systems in one JVM: fewer threads and smaller queues (not the traffic)
                "pekko.remote.artery.advanced.inbound-lanes = 1",
                "pekko.remote.artery.advanced.outbound-control-queue-size = 2000",
                "pekko.remote.artery.advanced.outbound-message-queue-size = 1000",
                "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min = 1",
                "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = 2",
                "pekko.actor.internal-dispatcher.fork-join-executor.parallelism-min = 1",
                "pekko.actor.internal-dispatcher.fork-join-executor.parallelism-max = 2",
                "pekko.remote.default-remote-dispatcher.fork-join-executor.parallelism-min = 1",
                "pekko.remote.default-remote-dispatcher.fork-join-executor.parallelism-max = 1",
                // two shared cores: tolerate pauses (this changes no traffic)
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 10s",
                "pekko.cluster.jmx.enabled = off",
                "pekko.cluster.log-info = off",
                "pekko.coordinated-shutdown.run-by-actor-system-terminate = off"))
        .withFallback(ConfigFactory.load());
  }

  /** Per-phase figures. */
  record Figures(
      String phase,
      int nodes,
      double seconds,
      RemoteTraffic.Snapshot traffic,
      double pekkoCpuSeconds,
      double processCpuSeconds,
      double gcSeconds,
      Map<State, Integer> states,
      int maxUnreachable) {}

  /**
   * Runs the phases and prints the figures.
   *
   * @param args nodes (default 10), window in seconds (default 20), capacity per second (default
   *     200)
   * @throws Exception if a phase fails
   */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int window = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int capacity = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    // Artery advertises its compression tables after a minute: measure after them by default
    int settle = args.length > 3 ? Integer.parseInt(args[3]) : 75;
    List<Figures> all = run(n, window, capacity, settle);
    printSummary(all);
    System.out.printf("done, %s%n", uptime());
    System.out.flush();
    Runtime.getRuntime().halt(0); // the systems are not shut down one by one: nothing to keep
  }

  /**
   * Starts the cluster and runs the four phases, printing each phase's figures when it ends.
   *
   * @param n the number of nodes
   * @param window the seconds each phase is measured
   * @param capacity the resource's calls per second after the outage
   * @param settle the seconds to wait after the cluster is up before the first phase
   * @return the figures of each phase
   * @throws Exception if a phase fails
   */
  static List<Figures> run(int n, int window, int capacity, int settle) throws Exception {
    capacityPer100ms = Math.max(1, capacity / 10);
    System.out.printf(
        Locale.ROOT,
        "CoordinationCost: %d nodes in one JVM, window %d s, resource capacity %d/s, %s%n",
        n,
        window,
        capacity,
        uptime());
    List<ActorSystem<Void>> nodes = start(n);
    List<Figures> all = new ArrayList<>();
    System.out.printf("cluster up; settling %d s%n", settle);
    Thread.sleep(settle * 1000L);
    all.add(print(measure("cluster", nodes, window)));

    for (ActorSystem<Void> node : nodes) {
      RestartBudgets.get(node).gate(BUDGET); // the gate and its coordination start
    }
    await(Duration.ofSeconds(60 + n), () -> nodes.stream().allMatch(x -> entries(x) == n));
    Thread.sleep(5000);
    all.add(print(measure("idle", nodes, window)));

    // enough actors that the ramp lasts beyond the window at the resource's capacity
    int perNode = Math.max(20, (capacity * (window + 20) + n - 1) / n);
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    for (ActorSystem<Void> node : nodes) {
      for (int a = 0; a < perNode; a++) {
        node.systemActorOf(BackoffSupervisor.wrap(cell(), policy), "cell-" + a, Props.empty());
      }
    }
    System.out.printf("%d actors per node, resource down%n", perNode);
    await(Duration.ofSeconds(60 + n), () -> count(states(nodes), State.HOLDING) == n);
    Thread.sleep(3000);
    all.add(print(measure("holding", nodes, window)));

    up.set(true);
    await(Duration.ofSeconds(30 + n), () -> count(states(nodes), State.RAMPING) > 0);
    int before = recovered.get();
    all.add(print(measure("ramp", nodes, window)));
    System.out.printf(
        "ramp: %d of %d actors back during the window, %d in all%n",
        recovered.get() - before, perNode * n, recovered.get());
    return all;
  }

  static List<ActorSystem<Void>> start(int n) throws Exception {
    Config config = config();
    ExecutorService starter = Executors.newFixedThreadPool(4);
    List<CompletableFuture<ActorSystem<Void>>> starting = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      starting.add(
          CompletableFuture.supplyAsync(
              () -> ActorSystem.create(Behaviors.<Void>empty(), SYSTEM, config), starter));
    }
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (CompletableFuture<ActorSystem<Void>> node : starting) {
      nodes.add(node.get(120, TimeUnit.SECONDS));
    }
    starter.shutdown();
    Address first = Cluster.get(nodes.get(0)).selfMember().address();
    for (ActorSystem<Void> node : nodes) {
      Cluster.get(node).manager().tell(Join.create(first));
    }
    long t = System.nanoTime();
    await(Duration.ofSeconds(120 + 3L * n), () -> nodes.stream().allMatch(x -> upMembers(x) == n));
    System.out.printf(Locale.ROOT, "%d nodes up in %.1f s%n", n, (System.nanoTime() - t) / 1e9);
    return nodes;
  }

  static Figures measure(String phase, List<ActorSystem<Void>> nodes, int seconds)
      throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Map<Long, Long> cpu0 = pekkoThreadCpu(threads);
    long process0 = os.getProcessCpuTime();
    long gc0 = gcMillis();
    RemoteTraffic.Snapshot t0 = RemoteTraffic.snapshot();
    long wall0 = System.nanoTime();
    int maxUnreachable = 0;
    long end = wall0 + seconds * 1_000_000_000L;
    while (System.nanoTime() < end) {
      Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
      for (ActorSystem<Void> node : nodes) {
        maxUnreachable =
            Math.max(maxUnreachable, Cluster.get(node).state().getUnreachable().size());
      }
    }
    RemoteTraffic.Snapshot t1 = RemoteTraffic.snapshot();
    long wall1 = System.nanoTime();
    long process1 = os.getProcessCpuTime();
    long gc1 = gcMillis();
    Map<Long, Long> cpu1 = pekkoThreadCpu(threads);
    long pekko = 0;
    for (Map.Entry<Long, Long> e : cpu1.entrySet()) {
      pekko += e.getValue() - cpu0.getOrDefault(e.getKey(), 0L);
    }
    Map<State, Integer> states = states(nodes);
    return new Figures(
        phase,
        nodes.size(),
        (wall1 - wall0) / 1e9,
        t1.minus(t0),
        pekko / 1e9,
        (process1 - process0) / 1e9,
        (gc1 - gc0) / 1e3,
        states,
        maxUnreachable);
  }

  /** CPU time of every live thread of the actor systems (their names start with the name). */
  static Map<Long, Long> pekkoThreadCpu(ThreadMXBean threads) {
    Map<Long, Long> out = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(SYSTEM + "-")) {
        long t = threads.getThreadCpuTime(info.getThreadId());
        if (t >= 0) {
          out.put(info.getThreadId(), t);
        }
      }
    }
    return out;
  }

  static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  static Map<State, Integer> states(List<ActorSystem<Void>> nodes) {
    Map<State, Integer> out = new EnumMap<>(State.class);
    for (ActorSystem<Void> node : nodes) {
      try {
        RestartBudgets.get(node)
            .status(BUDGET_NAME)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS)
            .ifPresent(s -> out.merge(s.state(), 1, Integer::sum));
      } catch (Exception e) {
        // a node that does not answer in time is left out of the count
      }
    }
    return out;
  }

  static int count(Map<State, Integer> states, State state) {
    return states.getOrDefault(state, 0);
  }

  static int entries(ActorSystem<Void> node) {
    Key<LWWMap<String, String>> key = LWWMapKey.create("supervision-backoff-budget-" + BUDGET_NAME);
    try {
      Replicator.GetResponse<LWWMap<String, String>> rsp =
          AskPattern.<Replicator.Command, Replicator.GetResponse<LWWMap<String, String>>>ask(
                  DistributedData.get(node).replicator(),
                  replyTo -> new Replicator.Get<>(key, Replicator.readLocal(), replyTo),
                  Duration.ofSeconds(5),
                  node.scheduler())
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      return rsp instanceof Replicator.GetSuccess<LWWMap<String, String>> ok
          ? ok.get(key).getEntries().size()
          : 0;
    } catch (Exception e) {
      return 0;
    }
  }

  static long upMembers(ActorSystem<?> node) {
    return StreamSupport.stream(Cluster.get(node).state().getMembers().spliterator(), false)
        .filter(m -> m.status() == MemberStatus.up())
        .count();
  }

  static void await(Duration max, BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("condition not met within " + max);
      }
      Thread.sleep(200);
    }
  }

  static Figures print(Figures f) {
    double per = f.nodes() * f.seconds();
    System.out.printf(
        Locale.ROOT,
        "%n== phase %s: %d nodes, %.1f s, budget states at the end %s, most unreachable members"
            + " seen by a node %d%n",
        f.phase(),
        f.nodes(),
        f.seconds(),
        f.states(),
        f.maxUnreachable());
    System.out.printf("%-55s %12s %12s%n", "sent per node per second", "messages", "bytes");
    long[] total = new long[2];
    f.traffic()
        .kinds()
        .forEach(
            (k, v) -> {
              total[0] += v[0];
              total[1] += v[1];
              System.out.printf(
                  Locale.ROOT, "%-55s %12.2f %12.0f%n", k.label, v[0] / per, v[1] / per);
            });
    System.out.printf(Locale.ROOT, "%-55s %12.2f %12.0f%n", "all", total[0] / per, total[1] / per);
    System.out.println("  by message class (kind, class: messages, bytes per node per second)");
    f.traffic().classes().entrySet().stream()
        .filter(e -> e.getValue()[0] > 0)
        .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
        .limit(14)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "  %-60s %10.2f %10.0f (%.0f B each)%n",
                    e.getKey(),
                    e.getValue()[0] / per,
                    e.getValue()[1] / per,
                    (double) e.getValue()[1] / e.getValue()[0]));
    System.out.printf(
        Locale.ROOT,
        "CPU per node: %.2f %% of a core in the systems' threads (%.2f ms/s), process %.2f %%,"
            + " GC %.2f %% (JVM-wide, per node)%n",
        100 * f.pekkoCpuSeconds() / per,
        1000 * f.pekkoCpuSeconds() / per,
        100 * f.processCpuSeconds() / per,
        100 * f.gcSeconds() / per);
    System.out.flush();
    return f;
  }

  static void printSummary(List<Figures> all) {
    System.out.printf(
        "%nSUMMARY per node per second: phase | coordination msgs, bytes | cluster heartbeats"
            + " msgs, bytes | cluster gossip msgs, bytes | Artery control msgs, bytes | other"
            + " ddata msgs, bytes | CPU %% of a core (systems' threads)%n");
    for (Figures f : all) {
      double per = f.nodes() * f.seconds();
      Map<RemoteTraffic.Kind, long[]> k = f.traffic().kinds();
      StringBuilder line = new StringBuilder("SUMMARY n=" + f.nodes() + " " + f.phase());
      for (RemoteTraffic.Kind kind :
          List.of(
              RemoteTraffic.Kind.COORDINATION,
              RemoteTraffic.Kind.CLUSTER_HEARTBEAT,
              RemoteTraffic.Kind.CLUSTER_GOSSIP,
              RemoteTraffic.Kind.REMOTING,
              RemoteTraffic.Kind.DDATA_OTHER)) {
        long[] v = k.get(kind);
        line.append(String.format(Locale.ROOT, " | %.2f, %.0f", v[0] / per, v[1] / per));
      }
      line.append(String.format(Locale.ROOT, " | %.2f", 100 * f.pekkoCpuSeconds() / per));
      System.out.println(line);
    }
  }

  static String uptime() {
    try {
      return "load "
          + new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg")))
              .trim();
    } catch (java.io.IOException e) {
      return "load unknown";
    }
  }
}
