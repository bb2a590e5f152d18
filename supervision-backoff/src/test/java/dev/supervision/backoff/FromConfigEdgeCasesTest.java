package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * fromConfig at its edges: the one-argument form rejects unknown keys too, numbers beyond an int,
 * the class loader of class names, and an adaptive budget's burst.
 */
final class FromConfigEdgeCasesTest {

  private static final String PATH = "my-service.worker-backoff";

  /** A throwable that only this test's class loader (not the bootstrap loader) can see. */
  static final class OnlyOnTheTestClassPath extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  private static final String TEST_CLASS = OnlyOnTheTestClassPath.class.getName();

  private static BackoffPolicy read(String block) {
    return BackoffPolicy.fromConfig(ConfigFactory.parseString(PATH + " {\n" + block + "\n}"), PATH);
  }

  private static <T> T withContextClassLoader(
      ClassLoader loader, java.util.function.Supplier<T> f) {
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return f.get();
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  @Test
  void theOneArgumentFormRejectsAKeyThatIsNotASetting() {
    Config block = ConfigFactory.parseString("min-backoff = 1s\nmax-backof = 1m");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BackoffPolicy.fromConfig(block));
    assertEquals(
        "max-backof (String: 2): unknown setting; a backoff policy block has only "
            + String.join(", ", PolicySetting.KEYS),
        e.getMessage());
  }

  @Test
  void aSeedBeyondTheRangeOfAnIntIsRead() {
    assertEquals(
        OptionalLong.of(10_000_000_000L), read("random-seed = 10000000000").getRandomSeed());
    assertEquals(
        OptionalLong.of(-10_000_000_000L), read("random-seed = \"-10000000000\"").getRandomSeed());
  }

  @Test
  void aCountBeyondTheRangeOfAnIntIsRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> read("max-restarts = 10000000000"));
    assertEquals(
        PATH + ".max-restarts: 10000000000 is not off or a whole number >= 0", e.getMessage());
  }

  @Test
  void classNamesAreLoadedWithTheThreadsContextClassLoader() {
    // a context class loader that sees the JDK only
    ClassLoader jdkOnly = new URLClassLoader(new URL[0], null);
    IllegalArgumentException e =
        withContextClassLoader(
            jdkOnly,
            () ->
                assertThrows(
                    IllegalArgumentException.class,
                    () -> read("restart-on = [\"" + TEST_CLASS + "\"]")));
    assertEquals(
        PATH
            + ".restart-on: [\""
            + TEST_CLASS
            + "\"] names class "
            + TEST_CLASS
            + ", which is not found (write the binary name, for example java.io.IOException or"
            + " com.example.Outer$Inner)",
        e.getMessage());
    assertEquals(
        List.of(IOException.class),
        withContextClassLoader(jdkOnly, () -> read("restart-on = [java.io.IOException]"))
            .getRestartOn());
  }

  @Test
  void withoutAContextClassLoaderClassNamesAreLoadedWithTheLibrarysClassLoader() {
    assertEquals(
        List.of(OnlyOnTheTestClassPath.class),
        withContextClassLoader(null, () -> read("stop-on = [\"" + TEST_CLASS + "\"]")).getStopOn());
  }

  @Test
  void anAdaptiveBudgetWithACeilingIgnoresTheBurst() {
    BackoffPolicy policy =
        BackoffPolicy.fromConfig(
            ConfigFactory.parseString(
                "supervision-backoff.budgets.db {"
                    + " mode = adaptive, permits = 500, period = 1s, burst = 50 }\n"
                    + PATH
                    + ".budget = db"),
            PATH);
    assertEquals(
        Optional.of(RestartBudget.adaptive("db").withMaxRate(500, Duration.ofSeconds(1))),
        policy.getBudget());
  }
}
