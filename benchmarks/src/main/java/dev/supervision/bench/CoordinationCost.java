package dev.supervision.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.supervision.backoff.BackoffPolicy;
import dev.supervision.backoff.BackoffSupervisor;
import dev.supervision.backoff.BudgetEvent;
import dev.supervision.backoff.RestartBudget;
import dev.supervision.backoff.RestartBudgets;
import dev.supervision.backoff.rate.AdaptiveRateController.State;
import dev.supervision.backoff.spi.GateProtocol;
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
import java.util.function.Consumer;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * What the coordination of one cluster-wide adaptive budget costs: N actor systems in this JVM
 * form a real Pekko Cluster over Artery TCP on 127.0.0.1, and one {@code
 * RestartBudget.adaptive(..).clusterWide()} budget goes through its states while every message
 * Artery sends is counted with its size ({@link RemoteTraffic}, an Artery {@code
 * RemoteInstrument}) and the CPU time of the actor systems' threads is read from the {@link
 * ThreadMXBean}.
 *
 * <p>The coordination is the budget's one learner, a Cluster Singleton on the oldest node (the
 * cluster module's {@code LearnerActor}): every round (the budget's slice, 100 ms) each node's
 * client sends the learner one report and the learner sends each node one lease ({@code
 * LearnerProtocol.Report} and {@code Granted}, Jackson CBOR), in every state, steady too. The
 * singleton starts only on the oldest node if that node created the budget's gate, so the harness
 * creates the gate on every node. Phases, each measured over the same window:
 *
 * <ol>
 *   <li>{@code cluster}: the cluster alone, no budget (its heartbeats and gossip);
 *   <li>{@code idle}: the budget's gate started on every node, nothing fails: every node holds a
 *       lease from the learner ({@code coordination().coordinated()}) that counts all N nodes
 *       ({@code inView()});
 *   <li>{@code holding}: the resource is down and every node has actors waiting: every node holds;
 *   <li>{@code ramp}: the resource is back with a finite capacity and many actors still wait: the
 *       nodes ramp.
 * </ol>
 *
 * <p>Per phase it prints the messages and bytes sent per node and second, by kind (the learner's
 * reports and leases, the learner's singleton manager and proxy, the cluster's heartbeats and
 * gossip, Artery's own control messages, the receptionist's Distributed Data), and the
 * coordination apart: what a node other than the learner's sends (its reports) and receives (its
 * leases), and what the learner's node receives and sends (the reports of the N - 1 other nodes,
 * their leases; its own node's client is local and crosses no wire), with everything else the
 * learner's node sends and receives. It also prints the top message classes and the CPU. All
 * systems share one name (a cluster needs it), so the CPU is the sum over every thread whose name
 * starts with it, divided by N: the mean node (the learner's node cannot be told apart).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar dev.supervision.bench.CoordinationCost \
 *     [nodes=10] [window-seconds=20] [capacity-per-second=200] [settle-seconds=75] [jvms=1]
 * </pre>
 *
 * With {@code jvms > 1} the nodes are spread over this JVM and {@code jvms - 1} child JVMs started
 * with the same options (a JVM may hold about 65 nodes: each pair of nodes has two Artery TCP
 * connections each way, both ends in the JVM, against a limit of 20,000 open files here). The
 * learner's node, the oldest, is this JVM's first node, the seed.
 *
 * <p>Pekko's defaults for everything that decides the traffic (cluster gossip every 1 s, heartbeats
 * every 1 s to 9 monitors, the singleton proxy's identification every 1 s until it finds the
 * singleton); the budget's default round of 100 ms; smaller thread pools and queues so that many
 * systems fit in one JVM (see {@link #config()}).
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
  private static final AtomicInteger toHolding = new AtomicInteger();
  private static final AtomicInteger toRamping = new AtomicInteger();

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

  /**
   * The nodes' settings: the harness's own (below), under any {@code -D} system property, which
   * wins (a child JVM gets the parent's {@code -D} options), over Pekko's defaults. So a run can
   * tolerate a longer stall, for example {@code
   * -Dpekko.cluster.failure-detector.acceptable-heartbeat-pause=60s}, without a rebuild.
   *
   * @return the configuration every node of this JVM starts with
   */
  static Config config() {
    return ConfigFactory.systemProperties()
        .withFallback(
            ConfigFactory.parseString(
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
                    "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 20s",
                    "pekko.cluster.jmx.enabled = off",
                    "pekko.cluster.log-info = off",
                    "pekko.coordinated-shutdown.run-by-actor-system-terminate = off")))
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
      int maxUnreachable,
      int toHolding,
      int toRamping) {}

  /**
   * Runs the phases and prints the figures.
   *
   * @param args nodes (default 10), window in seconds (default 20), capacity per second (default
   *     200)
   * @throws Exception if a phase fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--child")) {
      child(args);
      return;
    }
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int window = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int capacity = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    // Artery advertises its compression tables after a minute: measure after them by default
    int settle = args.length > 3 ? Integer.parseInt(args[3]) : 75;
    int jvms = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    List<Figures> all =
        run(n, window, capacity, settle, jvms, Pauses.MEASURED, System.out::println);
    printSummary(all);
    System.out.printf("done, %s%n", uptime());
    System.out.flush();
    Runtime.getRuntime().halt(0); // the systems are not shut down one by one: nothing to keep
  }

  /**
   * How long the run waits, once the budget is in a phase's state on every node, before it measures
   * the phase: the traffic of getting there dies away first.
   *
   * @param beforeIdle after every node holds a lease that counts every node: the reports by which
   *     the nodes registered, the singleton proxies' identification
   * @param beforeHolding after every node holds
   */
  record Pauses(Duration beforeIdle, Duration beforeHolding) {
    /**
     * The pauses of the measured runs (BENCHMARKS.md, "Coordination cost of one learner"): 5 s before
     * idle, 3 s before holding.
     */
    static final Pauses MEASURED = new Pauses(Duration.ofSeconds(5), Duration.ofSeconds(3));
  }

  /**
   * Starts the cluster and runs the four phases, writing each phase's figures when it ends.
   *
   * @param n the number of nodes
   * @param window the seconds each phase is measured
   * @param capacity the resource's calls per second after the outage
   * @param settle the seconds to wait after the cluster is up before the first phase
   * @param jvms how many JVMs the nodes are spread over (this one and {@code jvms - 1} children)
   * @param pauses the pauses before the idle and the holding phase
   * @param out where the figures go, one line at a time
   * @return the figures of each phase
   * @throws Exception if a phase fails
   */
  static List<Figures> run(
      int n, int window, int capacity, int settle, int jvms, Pauses pauses, Consumer<String> out)
      throws Exception {
    int perJvm = n / jvms;
    int own = n - perJvm * (jvms - 1);
    capacityPer100ms = Math.max(1, capacity * own / n / 10);
    out.accept(
        String.format(
            Locale.ROOT,
            "CoordinationCost: %d nodes in %d JVM(s) (%d here), window %d s, resource capacity %d/s,"
                + " %s",
            n,
            jvms,
            own,
            window,
            capacity,
            uptime()));
    List<ActorSystem<Void>> nodes = start(own, null);
    String seed = Cluster.get(nodes.get(0)).selfMember().address().toString();
    long t = System.nanoTime();
    List<Child> children = new ArrayList<>();
    for (int j = 1; j < jvms; j++) {
      Child child = new Child(perJvm, seed, Math.max(1, capacity * perJvm / n / 10), out);
      child.reply(); // its nodes are up
      children.add(child);
    }
    await(Duration.ofSeconds(120 + 3L * n), () -> nodes.stream().allMatch(x -> upMembers(x) == n));
    out.accept(
        String.format(
            Locale.ROOT, "%d nodes up (%.1f s after the first)", n, (System.nanoTime() - t) / 1e9));
    List<Figures> all = new ArrayList<>();
    out.accept(String.format("cluster up; settling %d s", settle));
    Thread.sleep(settle * 1000L);
    all.add(print(measureAll("cluster", nodes, children, window), out));

    Address learner = oldest(nodes.get(0));
    RemoteTraffic.learner(learner);
    out.accept("the learner's node (the oldest member): " + learner);
    children.forEach(c -> c.ask("learner " + learner));
    RemoteTraffic.Snapshot beforeGates = RemoteTraffic.snapshot();
    long gatesAt = System.nanoTime();
    gates(nodes);
    children.forEach(c -> c.ask("gate"));
    // every node holds a lease from the learner, and the learner counts every node
    await(
        Duration.ofSeconds(60 + n),
        () ->
            minInView(nodes) == n
                && children.stream().allMatch(c -> Integer.parseInt(c.ask("in-view")) == n));
    RemoteTraffic.Snapshot start = RemoteTraffic.snapshot().minus(beforeGates);
    out.accept(
        String.format(
            Locale.ROOT,
            "every node holds a lease that counts %d nodes, %.1f s after the gates were created;"
                + " the coordination's messages meanwhile (sent by this JVM's nodes, in all):",
            n,
            (System.nanoTime() - gatesAt) / 1e9));
    start
        .classes()
        .forEach(
            (k, v) -> {
              if (v[0] > 0
                  && (k.startsWith(RemoteTraffic.Kind.COORDINATION.name())
                      || k.startsWith(RemoteTraffic.Kind.SINGLETON.name()))) {
                out.accept(String.format(Locale.ROOT, "  %-60s %8d %10d B", k, v[0], v[1]));
              }
            });
    Thread.sleep(pauses.beforeIdle().toMillis());
    all.add(print(measureAll("idle", nodes, children, window), out));

    // enough actors that the ramp lasts beyond the window at the resource's capacity
    int perNode = Math.max(20, (capacity * (window + 20) + n - 1) / n);
    spawn(nodes, perNode);
    children.forEach(c -> c.ask("spawn " + perNode));
    out.accept(String.format("%d actors per node, resource down", perNode));
    if (!awaitOrGoOn(
        Duration.ofSeconds(60 + n),
        () -> allStates(nodes, children).getOrDefault(State.HOLDING, 0) == n)) {
      out.accept("not every node held at once; measuring anyway: " + allStates(nodes, children));
    }
    Thread.sleep(pauses.beforeHolding().toMillis());
    all.add(print(measureAll("holding", nodes, children, window), out));

    up.set(true);
    children.forEach(c -> c.ask("up"));
    await(
        Duration.ofSeconds(30 + n),
        () -> allStates(nodes, children).getOrDefault(State.RAMPING, 0) > 0);
    int before = allRecovered(children);
    all.add(print(measureAll("ramp", nodes, children, window), out));
    out.accept(
        String.format(
            "ramp: %d of %d actors back during the window, %d in all",
            allRecovered(children) - before, perNode * n, allRecovered(children)));
    children.forEach(Child::quit);
    for (ActorSystem<Void> node : nodes) {
      node.terminate();
    }
    for (ActorSystem<Void> node : nodes) {
      node.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
    return all;
  }

  static void gates(List<ActorSystem<Void>> nodes) {
    for (ActorSystem<Void> node : nodes) {
      org.apache.pekko.actor.typed.ActorRef<BudgetEvent> counter =
          node.systemActorOf(
              Behaviors.receive(BudgetEvent.class)
                  .onMessage(
                      BudgetEvent.StateChanged.class,
                      e -> {
                        (e.to() == State.HOLDING ? toHolding : toRamping).incrementAndGet();
                        return Behaviors.same();
                      })
                  .build(),
              "state-changes",
              Props.empty());
      node.eventStream()
          .tell(
              new org.apache.pekko.actor.typed.eventstream.EventStream.Subscribe<>(
                  BudgetEvent.StateChanged.class, counter.narrow()));
      RestartBudgets.get(node).gate(BUDGET); // the gate and its coordination start
    }
  }

  static void spawn(List<ActorSystem<Void>> nodes, int perNode) {
    BackoffPolicy policy =
        BackoffPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2))
            .withBudget(BUDGET)
            .withLoggingEnabled(false);
    for (ActorSystem<Void> node : nodes) {
      for (int a = 0; a < perNode; a++) {
        node.systemActorOf(BackoffSupervisor.wrap(cell(), policy), "cell-" + a, Props.empty());
      }
    }
  }

  /**
   * The cluster's oldest member, where the learner singleton runs (every node creates the budget's
   * gate, so every node runs a singleton manager, and the oldest's starts the learner).
   */
  static Address oldest(ActorSystem<?> node) {
    org.apache.pekko.cluster.Member oldest = null;
    for (org.apache.pekko.cluster.Member m : Cluster.get(node).state().getMembers()) {
      if (m.status() == MemberStatus.up() && (oldest == null || m.isOlderThan(oldest))) {
        oldest = m;
      }
    }
    if (oldest == null) {
      throw new IllegalStateException("no member is up");
    }
    return oldest.address();
  }

  static int minInView(List<ActorSystem<Void>> nodes) {
    return nodes.stream().mapToInt(CoordinationCost::inView).min().orElse(0);
  }

  static Map<State, Integer> allStates(List<ActorSystem<Void>> nodes, List<Child> children) {
    Map<State, Integer> out = states(nodes);
    for (Child c : children) {
      decodeStates(c.ask("states")).forEach((k, v) -> out.merge(k, v, Integer::sum));
    }
    return out;
  }

  static int allRecovered(List<Child> children) {
    int sum = recovered.get();
    for (Child c : children) {
      sum += Integer.parseInt(c.ask("recovered"));
    }
    return sum;
  }

  /** Measures this JVM's nodes and every child's at the same time, and adds the figures up. */
  static Figures measureAll(
      String phase, List<ActorSystem<Void>> nodes, List<Child> children, int seconds)
      throws Exception {
    children.forEach(c -> c.send("measure " + phase + " " + seconds));
    Figures f = measure(phase, nodes, seconds);
    for (Child c : children) {
      f = add(f, decode(c.reply()));
    }
    return f;
  }

  static Figures add(Figures a, Figures b) {
    Map<RemoteTraffic.Kind, long[]> kinds = new java.util.TreeMap<>(a.traffic().kinds());
    b.traffic().kinds().forEach((k, v) -> kinds.merge(k, v, CoordinationCost::sum));
    Map<String, long[]> classes = merge(a.traffic().classes(), b.traffic().classes());
    Map<State, Integer> states = new EnumMap<>(State.class);
    states.putAll(a.states());
    b.states().forEach((k, v) -> states.merge(k, v, Integer::sum));
    return new Figures(
        a.phase(),
        a.nodes() + b.nodes(),
        Math.max(a.seconds(), b.seconds()),
        new RemoteTraffic.Snapshot(
            kinds,
            classes,
            merge(a.traffic().learnerOut(), b.traffic().learnerOut()),
            merge(a.traffic().learnerIn(), b.traffic().learnerIn())),
        a.pekkoCpuSeconds() + b.pekkoCpuSeconds(),
        a.processCpuSeconds() + b.processCpuSeconds(),
        a.gcSeconds() + b.gcSeconds(),
        states,
        Math.max(a.maxUnreachable(), b.maxUnreachable()),
        a.toHolding() + b.toHolding(),
        a.toRamping() + b.toRamping());
  }

  private static Map<String, long[]> merge(Map<String, long[]> a, Map<String, long[]> b) {
    Map<String, long[]> out = new java.util.TreeMap<>(a);
    b.forEach((k, v) -> out.merge(k, v, CoordinationCost::sum));
    return out;
  }

  private static long[] sum(long[] x, long[] y) {
    return new long[] {x[0] + y[0], x[1] + y[1]};
  }

  static String encode(Figures f) {
    StringBuilder k = new StringBuilder();
    f.traffic()
        .kinds()
        .forEach(
            (kind, v) ->
                k.append(kind).append('=').append(v[0]).append(':').append(v[1]).append(','));
    StringBuilder st = new StringBuilder();
    f.states().forEach((state, v) -> st.append(state).append('=').append(v).append(','));
    return String.join(
        " ",
        f.phase(),
        Integer.toString(f.nodes()),
        Double.toString(f.seconds()),
        Double.toString(f.pekkoCpuSeconds()),
        Double.toString(f.processCpuSeconds()),
        Double.toString(f.gcSeconds()),
        Integer.toString(f.maxUnreachable()),
        Integer.toString(f.toHolding()),
        Integer.toString(f.toRamping()),
        "s" + st,
        "k" + k,
        "c" + encodeClasses(f.traffic().classes()),
        "o" + encodeClasses(f.traffic().learnerOut()),
        "i" + encodeClasses(f.traffic().learnerIn()));
  }

  private static String encodeClasses(Map<String, long[]> classes) {
    StringBuilder c = new StringBuilder();
    classes.forEach(
        (name, v) ->
            c.append(name.replace(' ', '~'))
                .append('=')
                .append(v[0])
                .append(':')
                .append(v[1])
                .append(','));
    return c.toString();
  }

  static Figures decode(String line) {
    String[] f = line.split(" ");
    Map<RemoteTraffic.Kind, long[]> kinds = new java.util.TreeMap<>();
    pairs(f[10].substring(1))
        .forEach((k, v) -> kinds.put(RemoteTraffic.Kind.valueOf(k), counts(v)));
    return new Figures(
        f[0],
        Integer.parseInt(f[1]),
        Double.parseDouble(f[2]),
        new RemoteTraffic.Snapshot(
            kinds, decodeClasses(f[11]), decodeClasses(f[12]), decodeClasses(f[13])),
        Double.parseDouble(f[3]),
        Double.parseDouble(f[4]),
        Double.parseDouble(f[5]),
        decodeStates(f[9]),
        Integer.parseInt(f[6]),
        Integer.parseInt(f[7]),
        Integer.parseInt(f[8]));
  }

  private static Map<String, long[]> decodeClasses(String field) {
    Map<String, long[]> classes = new java.util.TreeMap<>();
    pairs(field.substring(1)).forEach((k, v) -> classes.put(k.replace('~', ' '), counts(v)));
    return classes;
  }

  static String encodeStates(Map<State, Integer> states) {
    StringBuilder st = new StringBuilder("s");
    states.forEach((state, v) -> st.append(state).append('=').append(v).append(','));
    return st.toString();
  }

  static Map<State, Integer> decodeStates(String s) {
    Map<State, Integer> out = new EnumMap<>(State.class);
    pairs(s.substring(1)).forEach((k, v) -> out.put(State.valueOf(k), Integer.parseInt(v)));
    return out;
  }

  private static Map<String, String> pairs(String s) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String p : s.split(",")) {
      if (!p.isEmpty()) {
        int eq = p.indexOf('=');
        out.put(p.substring(0, eq), p.substring(eq + 1));
      }
    }
    return out;
  }

  private static long[] counts(String v) {
    int colon = v.indexOf(':');
    return new long[] {
      Long.parseLong(v.substring(0, colon)), Long.parseLong(v.substring(colon + 1))
    };
  }

  /** Nodes in another JVM (this class's main with {@code --child}), driven by lines. */
  static final class Child {
    private final java.io.BufferedReader out;
    private final java.io.PrintWriter in;
    private final Consumer<String> log;

    Child(int count, String seed, int capacityPer100ms, Consumer<String> log)
        throws java.io.IOException {
      this.log = log;
      List<String> command = new ArrayList<>();
      command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(CoordinationCost.class.getName());
      command.add("--child");
      command.add(Integer.toString(count));
      command.add(seed);
      command.add(Integer.toString(capacityPer100ms));
      Process process =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      out =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
      in =
          new java.io.PrintWriter(
              new java.io.OutputStreamWriter(
                  process.getOutputStream(), java.nio.charset.StandardCharsets.UTF_8),
              true);
    }

    void send(String command) {
      in.println(command);
    }

    String reply() {
      try {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.startsWith("@")) {
            return line.substring(1);
          }
          log.accept("  child: " + line);
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      throw new IllegalStateException("a child JVM ended");
    }

    String ask(String command) {
      send(command);
      return reply();
    }

    void quit() {
      send("quit");
    }
  }

  /** The main of a child JVM: starts its nodes, joins the seed and follows the parent's lines. */
  static void child(String[] args) throws Exception {
    int count = Integer.parseInt(args[1]);
    capacityPer100ms = Integer.parseInt(args[3]);
    List<ActorSystem<Void>> nodes =
        start(count, org.apache.pekko.actor.AddressFromURIString.parse(args[2]));
    System.out.println("@ready");
    java.io.BufferedReader commands =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    for (String line = commands.readLine(); line != null; line = commands.readLine()) {
      String[] c = line.split(" ");
      String reply =
          switch (c[0]) {
            case "gate" -> {
              gates(nodes);
              yield "ok";
            }
            case "learner" -> {
              RemoteTraffic.learner(org.apache.pekko.actor.AddressFromURIString.parse(c[1]));
              yield "ok";
            }
            case "in-view" -> Integer.toString(minInView(nodes));
            case "states" -> encodeStates(states(nodes));
            case "spawn" -> {
              spawn(nodes, Integer.parseInt(c[1]));
              yield "ok";
            }
            case "up" -> {
              up.set(true);
              yield "ok";
            }
            case "recovered" -> Integer.toString(recovered.get());
            case "measure" -> encode(measure(c[1], nodes, Integer.parseInt(c[2])));
            default -> null;
          };
      if (reply == null) {
        break;
      }
      System.out.println("@" + reply);
    }
    Runtime.getRuntime().halt(0);
  }

  /**
   * Starts {@code count} nodes in this JVM and has them join {@code seed} (or the first of them),
   * ten at a time ({@code -Dcost.join-batch}), each ten once the ones before are up: many nodes
   * joining at once on two cores stall each other's heartbeats and the leader cannot move them up.
   */
  static List<ActorSystem<Void>> start(int count, Address seed) throws Exception {
    Config config = config();
    ExecutorService starter = Executors.newFixedThreadPool(2);
    List<CompletableFuture<ActorSystem<Void>>> starting = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      starting.add(
          CompletableFuture.supplyAsync(
              () -> ActorSystem.create(Behaviors.<Void>empty(), SYSTEM, config), starter));
    }
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (CompletableFuture<ActorSystem<Void>> node : starting) {
      nodes.add(node.get(300, TimeUnit.SECONDS));
    }
    starter.shutdown();
    Address first = seed != null ? seed : Cluster.get(nodes.get(0)).selfMember().address();
    int size = Integer.getInteger("cost.join-batch", 10);
    for (int from = 0; from < count; from += size) {
      List<ActorSystem<Void>> batch = nodes.subList(from, Math.min(count, from + size));
      for (ActorSystem<Void> node : batch) {
        Cluster.get(node).manager().tell(Join.create(first));
      }
      await(
          Duration.ofSeconds(180),
          () ->
              batch.stream()
                  .allMatch(x -> Cluster.get(x).selfMember().status() == MemberStatus.up()));
    }
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
    int holding0 = toHolding.get();
    int ramping0 = toRamping.get();
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
        maxUnreachable,
        toHolding.get() - holding0,
        toRamping.get() - ramping0);
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

  /**
   * How many nodes the learner counts, as this node's lease says ({@code inView}); 0 while the node
   * holds no lease (on its fallback its gate's {@code inView} is the members it knows, which says
   * nothing of the learner), before its gate exists, or if it does not answer in time.
   */
  static int inView(ActorSystem<Void> node) {
    try {
      return RestartBudgets.get(node)
          .status(BUDGET_NAME)
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS)
          .flatMap(GateProtocol.Status::coordination)
          .filter(GateProtocol.Coordination::coordinated)
          .map(GateProtocol.Coordination::inView)
          .orElse(0);
    } catch (Exception e) {
      return 0;
    }
  }

  static long upMembers(ActorSystem<?> node) {
    return StreamSupport.stream(Cluster.get(node).state().getMembers().spliterator(), false)
        .filter(m -> m.status() == MemberStatus.up())
        .count();
  }

  /**
   * Waits until the condition holds or the time is up, whichever comes first.
   *
   * @param max the longest wait
   * @param condition what to wait for
   * @return whether the condition held (false: the time was up)
   * @throws InterruptedException if interrupted
   */
  static boolean awaitOrGoOn(Duration max, BooleanSupplier condition) throws InterruptedException {
    try {
      await(max, condition);
      return true;
    } catch (IllegalStateException e) {
      return false;
    }
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

  /** The learner's round, the adaptive budget's default slice: 10 rounds a second. */
  static final double ROUNDS_PER_SECOND = 10;

  /**
   * A phase's coordination traffic, per second: the learner's protocol ({@link
   * RemoteTraffic.Kind#COORDINATION}: reports and leases) and its singleton's machinery ({@link
   * RemoteTraffic.Kind#SINGLETON}), sent and received by a node other than the learner's (the
   * mean over them), and in and out at the learner's node. Messages between the learner and the
   * client on its own node do not cross the wire and are not counted.
   *
   * @param nodeSent messages and bytes a node other than the learner's sends (its reports)
   * @param nodeReceived messages and bytes such a node receives (its leases)
   * @param nodeSingleton singleton messages such a node sends and receives, summed
   * @param learnerIn messages and bytes the learner's node receives (the reports)
   * @param learnerOut messages and bytes the learner's node sends (the leases)
   * @param learnerSingleton singleton messages in and out at the learner's node, summed
   * @param learnerAllIn everything the learner's node receives (every kind)
   * @param learnerAllOut everything the learner's node sends (every kind)
   */
  record Coordination(
      double[] nodeSent,
      double[] nodeReceived,
      double[] nodeSingleton,
      double[] learnerIn,
      double[] learnerOut,
      double[] learnerSingleton,
      double[] learnerAllIn,
      double[] learnerAllOut) {

    static Coordination of(Figures f) {
      RemoteTraffic.Snapshot t = f.traffic();
      double s = f.seconds();
      int others = Math.max(1, f.nodes() - 1);
      long[] all = t.kinds().get(RemoteTraffic.Kind.COORDINATION);
      long[] allSingleton = t.kinds().get(RemoteTraffic.Kind.SINGLETON);
      long[] in = RemoteTraffic.Snapshot.ofKind(t.learnerIn(), RemoteTraffic.Kind.COORDINATION);
      long[] out = RemoteTraffic.Snapshot.ofKind(t.learnerOut(), RemoteTraffic.Kind.COORDINATION);
      long[] sIn = RemoteTraffic.Snapshot.ofKind(t.learnerIn(), RemoteTraffic.Kind.SINGLETON);
      long[] sOut = RemoteTraffic.Snapshot.ofKind(t.learnerOut(), RemoteTraffic.Kind.SINGLETON);
      return new Coordination(
          rate(all[0] - out[0], all[1] - out[1], others * s),
          rate(all[0] - in[0], all[1] - in[1], others * s),
          rate(
              2 * allSingleton[0] - sIn[0] - sOut[0],
              2 * allSingleton[1] - sIn[1] - sOut[1],
              others * s),
          rate(in[0], in[1], s),
          rate(out[0], out[1], s),
          rate(sIn[0] + sOut[0], sIn[1] + sOut[1], s),
          rate(total(t.learnerIn())[0], total(t.learnerIn())[1], s),
          rate(total(t.learnerOut())[0], total(t.learnerOut())[1], s));
    }

    private static double[] rate(long messages, long bytes, double per) {
      return new double[] {messages / per, bytes / per};
    }

    private static long[] total(Map<String, long[]> byClass) {
      long[] out = new long[2];
      byClass
          .values()
          .forEach(
              v -> {
                out[0] += v[0];
                out[1] += v[1];
              });
      return out;
    }
  }

  static Figures print(Figures f, Consumer<String> out) {
    double per = f.nodes() * f.seconds();
    out.accept("");
    out.accept(
        String.format(
            Locale.ROOT,
            "== phase %s: %d nodes, %.1f s, budget states at the end %s, changes of state in the"
                + " window: %d to HOLDING, %d to RAMPING or STEADY; most unreachable members seen by a"
                + " node %d; %s",
            f.phase(),
            f.nodes(),
            f.seconds(),
            f.states(),
            f.toHolding(),
            f.toRamping(),
            f.maxUnreachable(),
            uptime()));
    out.accept(
        String.format(
            "%-60s %12s %12s", "sent per node per second (mean node)", "messages", "bytes"));
    long[] total = new long[2];
    f.traffic()
        .kinds()
        .forEach(
            (k, v) -> {
              total[0] += v[0];
              total[1] += v[1];
              out.accept(
                  String.format(
                      Locale.ROOT, "%-60s %12.2f %12.0f", k.label, v[0] / per, v[1] / per));
            });
    out.accept(
        String.format(Locale.ROOT, "%-60s %12.2f %12.0f", "all", total[0] / per, total[1] / per));
    Coordination c = Coordination.of(f);
    out.accept("  the coordination, per second (messages, bytes; per round = / 10)");
    line(out, "a node other than the learner's: sent (reports)", c.nodeSent());
    line(out, "a node other than the learner's: received (leases)", c.nodeReceived());
    line(out, "a node other than the learner's: singleton, in + out", c.nodeSingleton());
    line(out, "at the learner's node: in (reports)", c.learnerIn());
    line(out, "at the learner's node: out (leases)", c.learnerOut());
    line(out, "at the learner's node: singleton, in + out", c.learnerSingleton());
    line(out, "at the learner's node: everything in", c.learnerAllIn());
    line(out, "at the learner's node: everything out", c.learnerAllOut());
    out.accept("  by message class (kind, class: messages, bytes per node per second)");
    classes(out, f.traffic().classes(), per, 14);
    out.accept("  at the learner's node, out (kind, class: messages, bytes per second)");
    classes(out, f.traffic().learnerOut(), f.seconds(), 8);
    out.accept("  at the learner's node, in (kind, class: messages, bytes per second)");
    classes(out, f.traffic().learnerIn(), f.seconds(), 8);
    out.accept(
        String.format(
            Locale.ROOT,
            "CPU per node: %.2f %% of a core in the systems' threads (%.2f ms/s), process %.2f %%,"
                + " GC %.2f %% (JVM-wide, per node)",
            100 * f.pekkoCpuSeconds() / per,
            1000 * f.pekkoCpuSeconds() / per,
            100 * f.processCpuSeconds() / per,
            100 * f.gcSeconds() / per));
    return f;
  }

  private static void line(Consumer<String> out, String what, double[] v) {
    out.accept(
        String.format(
            Locale.ROOT,
            "  %-58s %12.2f %12.0f (%.2f a round, %.0f B each)",
            what,
            v[0],
            v[1],
            v[0] / ROUNDS_PER_SECOND,
            v[0] == 0 ? 0 : v[1] / v[0]));
  }

  private static void classes(
      Consumer<String> out, Map<String, long[]> byClass, double per, int limit) {
    byClass.entrySet().stream()
        .filter(e -> e.getValue()[0] > 0)
        .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
        .limit(limit)
        .forEach(
            e ->
                out.accept(
                    String.format(
                        Locale.ROOT,
                        "  %-60s %10.2f %10.0f (%.0f B each)",
                        e.getKey(),
                        e.getValue()[0] / per,
                        e.getValue()[1] / per,
                        (double) e.getValue()[1] / e.getValue()[0])));
  }

  static void printSummary(List<Figures> all) {
    System.out.printf(
        "%nSUMMARY per second: phase | a node other than the learner's: coordination sent msgs,"
            + " bytes | received msgs, bytes | at the learner's node: coordination in msgs, bytes |"
            + " out msgs, bytes | singleton msgs, bytes (node; learner) | per node (mean): cluster"
            + " heartbeats msgs, bytes | cluster gossip | Artery control | ddata (receptionist) |"
            + " CPU %% of a core (systems' threads / process)%n");
    for (Figures f : all) {
      double per = f.nodes() * f.seconds();
      Coordination c = Coordination.of(f);
      StringBuilder line = new StringBuilder("SUMMARY n=" + f.nodes() + " " + f.phase());
      for (double[] v :
          List.of(
              c.nodeSent(),
              c.nodeReceived(),
              c.learnerIn(),
              c.learnerOut(),
              c.nodeSingleton(),
              c.learnerSingleton())) {
        line.append(String.format(Locale.ROOT, " | %.2f, %.0f", v[0], v[1]));
      }
      Map<RemoteTraffic.Kind, long[]> k = f.traffic().kinds();
      for (RemoteTraffic.Kind kind :
          List.of(
              RemoteTraffic.Kind.CLUSTER_HEARTBEAT,
              RemoteTraffic.Kind.CLUSTER_GOSSIP,
              RemoteTraffic.Kind.REMOTING,
              RemoteTraffic.Kind.DDATA_OTHER)) {
        long[] v = k.get(kind);
        line.append(String.format(Locale.ROOT, " | %.2f, %.0f", v[0] / per, v[1] / per));
      }
      line.append(
          String.format(
              Locale.ROOT,
              " | %.2f / %.2f",
              100 * f.pekkoCpuSeconds() / per,
              100 * f.processCpuSeconds() / per));
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
