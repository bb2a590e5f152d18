package dev.supervision.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The examples' own logging (src/main/resources/logback.xml, what a user sees when running them):
 * one line per restart, no stack traces.
 */
final class ExampleLoggingTest {

  @Test
  void mainExampleLogsOneLinePerRestartWithoutStackTraces() throws Exception {
    URL mainConfig = ExampleLoggingTest.class.getClassLoader().getResource("logback.xml");
    URL testConfig = ExampleLoggingTest.class.getClassLoader().getResource("logback-test.xml");
    assertNotNull(mainConfig, "logback.xml on the classpath");
    assertNotNull(testConfig, "logback-test.xml on the classpath");

    ByteArrayOutputStream console = new ByteArrayOutputStream();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream originalOut = System.out;
    FlakyResourceExample.Result result;
    System.setOut(new PrintStream(console, true, StandardCharsets.UTF_8));
    try {
      configure(mainConfig);
      result =
          FlakyResourceExample.run(
              5, Duration.ofMillis(300), new PrintStream(printed, true, StandardCharsets.UTF_8));
    } finally {
      System.setOut(originalOut);
      configure(testConfig);
    }

    String summary = printed.toString(StandardCharsets.UTF_8);
    Matcher failures = Pattern.compile("(\\d+) failures handled").matcher(summary);
    assertTrue(failures.find(), summary);
    int failuresHandled = Integer.parseInt(failures.group(1));
    assertTrue(result.allAnswered() && failuresHandled >= 5, summary);

    List<String> lines = console.toString(StandardCharsets.UTF_8).lines().toList();
    long restartLines = lines.stream().filter(l -> l.contains("restarting in")).count();
    assertEquals(
        failuresHandled, restartLines, "one log line per restart:\n" + String.join("\n", lines));
    for (String line : lines) {
      assertTrue(
          line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"),
          "every line is a log line, no stack trace: [" + line + "]");
    }
  }

  private static void configure(URL config) throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(config);
  }
}
