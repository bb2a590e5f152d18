package dev.supervision.backoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.slf4j.event.Level;

/** Validation and the policy as a value: defaults, accessors, equality. */
final class BackoffPolicyTest {

  static final Duration MS100 = Duration.ofMillis(100);
  static final Duration S1 = Duration.ofSeconds(1);
  static final BackoffPolicy BASE = BackoffPolicy.exponential(MS100, S1);

  static void assertIae(String message, Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    assertEquals(message, e.getMessage());
  }

  static void assertNpe(String message, Executable call) {
    NullPointerException e = assertThrows(NullPointerException.class, call);
    assertEquals(message, e.getMessage());
  }

  @Test
  void theClassicOptionsDefaultValidateAndSet() {
    assertFalse(BASE.isRestartOnStop());
    assertEquals(java.util.Optional.empty(), BASE.getFinalStopMessage());
    assertFalse(BASE.isManualReset());
    assertEquals(java.util.Optional.empty(), BASE.getHandlerWhileBackingOff());
    assertFalse(BASE.isAggregatedLogging()); // auto, without a budget
    assertTrue(
        BASE.withBudget(RestartBudget.of("agg", 1, S1)).isAggregatedLogging()); // auto, budget
    assertFalse(
        BASE.withBudget(RestartBudget.of("agg", 1, S1))
            .withAggregatedLogging(false)
            .isAggregatedLogging());
    assertTrue(BASE.withAggregatedLogging(true).isAggregatedLogging());
    assertNpe("finalStopMessage must not be null", () -> BASE.withFinalStopMessage(null));
    assertNpe("handler must not be null", () -> BASE.withHandlerWhileBackingOff(null));
    java.util.function.Predicate<Object> rule = m -> true;
    BackoffHandler handler = (m, d) -> true;
    BackoffPolicy p =
        BASE.withRestartOnStop(true)
            .withFinalStopMessage(rule)
            .withManualReset()
            .withHandlerWhileBackingOff(handler);
    assertTrue(p.isRestartOnStop());
    assertSame(rule, p.getFinalStopMessage().get());
    assertTrue(p.isManualReset());
    assertSame(handler, p.getHandlerWhileBackingOff().get());
  }

  @Test
  void defaults() {
    assertEquals(MS100, BASE.getMinBackoff());
    assertEquals(S1, BASE.getMaxBackoff());
    assertEquals(2.0, BASE.getMultiplier());
    assertEquals(Jitter.full(), BASE.getJitter());
    assertEquals(Duration.ofMillis(550), BASE.getResetAfter()); // (min + max) / 2, as Pekko
    assertEquals(OptionalInt.empty(), BASE.getMaxRestarts());
    assertEquals(OptionalInt.empty(), BASE.getStashCapacitySetting());
    assertEquals(List.of(), BASE.getStopOn());
    assertEquals(java.util.Optional.empty(), BASE.getStopOnPredicate());
    assertEquals(List.of(), BASE.getRestartOn());
    assertTrue(BASE.isStopChildren());
    assertEquals(OptionalLong.empty(), BASE.getRandomSeed());
    assertEquals(Duration.ofHours(1), BASE.getMaxRetryAfter());
    assertEquals(Level.WARN, BASE.getLogLevel());
    assertEquals(Level.ERROR, BASE.getCriticalLogLevel());
    assertEquals(Integer.MAX_VALUE, BASE.getCriticalLogLevelAfter());
    assertTrue(BASE.isLoggingEnabled());
    assertEquals(List.of(), BASE.getListeners());
  }

  @Test
  void everySetterReturnsANewPolicyAndLeavesTheReceiverUnchanged() {
    BackoffListener listener = e -> {};
    BackoffPolicy p =
        BASE.withMultiplier(1.5)
            .withJitter(Jitter.equal())
            .withResetAfter(Duration.ofSeconds(30))
            .withMaxRestarts(7)
            .withStashCapacity(5)
            .withStopOn(
                IllegalArgumentException.class, IOException.class, IllegalArgumentException.class)
            .withRandomSeed(99)
            .withMaxRetryAfter(Duration.ofMinutes(2))
            .withLogLevel(Level.INFO)
            .withCriticalLogLevel(Level.WARN, 3)
            .withLoggingEnabled(false)
            .withListener(listener);
    assertEquals(1.5, p.getMultiplier());
    assertEquals(Jitter.equal(), p.getJitter());
    assertEquals(Duration.ofSeconds(30), p.getResetAfter());
    assertEquals(OptionalInt.of(7), p.getMaxRestarts());
    assertEquals(OptionalInt.of(5), p.getStashCapacitySetting());
    assertEquals(List.of(IllegalArgumentException.class, IOException.class), p.getStopOn());
    assertEquals(OptionalLong.of(99), p.getRandomSeed());
    assertEquals(Duration.ofMinutes(2), p.getMaxRetryAfter());
    assertEquals(Level.INFO, p.getLogLevel());
    assertEquals(Level.WARN, p.getCriticalLogLevel());
    assertEquals(3, p.getCriticalLogLevelAfter());
    assertFalse(p.isLoggingEnabled());
    assertEquals(List.of(listener), p.getListeners());
    assertEquals(OptionalInt.empty(), p.withUnlimitedRestarts().getMaxRestarts());
    assertEquals(BackoffPolicy.exponential(MS100, S1), BASE); // untouched
    assertThrows(UnsupportedOperationException.class, () -> p.getListeners().add(listener));
    assertThrows(UnsupportedOperationException.class, () -> p.getStopOn().add(IOException.class));
  }

  @Test
  void equalPoliciesAreEqualAndShowEverySetting() {
    BackoffPolicy a = BASE.withMaxRestarts(3).withRandomSeed(1);
    BackoffPolicy b = BackoffPolicy.exponential(MS100, S1).withMaxRestarts(3).withRandomSeed(1);
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, b.withRandomSeed(2));
    assertNotEquals(a, b.withMultiplier(3));
    assertNotEquals(a, b.withEventStreamPublishing(true));
    assertNotEquals(a, b.withStopChildren(false));
    assertNotEquals(a, b.withStashCapacity(1000)); // set explicitly is not the same as unset
    assertNotEquals(a, b.withRestartOn(IOException.class));
    java.util.function.Predicate<Throwable> rule = t -> false;
    assertNotEquals(a, b.withStopOn(rule));
    assertEquals(a.withStopOn(rule), b.withStopOn(rule));
    assertEquals(a.withStopOn(rule).hashCode(), b.withStopOn(rule).hashCode());
    assertEquals(
        "BackoffPolicy{minBackoff=PT0.1S, maxBackoff=PT1S, multiplier=2.0, jitter=full, resetAfter=PT0.55S,"
            + " maxRestarts=3, stashCapacity=auto, stopChildren=true, restartOnStop=false, finalStopMessage=none, manualReset=false, handlerWhileBackingOff=none, stopOn=[], stopOnPredicate=none,"
            + " restartOn=[], randomSeed=1, maxRetryAfter=PT1H, logLevel=WARN, criticalLogLevel=ERROR,"
            + " criticalLogLevelAfter=2147483647, loggingEnabled=true, aggregatedLogging=auto, eventStreamPublishing=false,"
            + " budget=none, listeners=0}",
        a.toString());
  }

  @Test
  void exponential_rejectsNullDurations() {
    assertNpe("minBackoff must not be null", () -> BackoffPolicy.exponential(null, S1));
    assertNpe("maxBackoff must not be null", () -> BackoffPolicy.exponential(MS100, null));
  }

  @Test
  void exponential_rejectsZeroAndNegativeDurations() {
    assertIae(
        "minBackoff must be > 0 but was PT0S", () -> BackoffPolicy.exponential(Duration.ZERO, S1));
    assertIae(
        "minBackoff must be > 0 but was PT-1S",
        () -> BackoffPolicy.exponential(Duration.ofSeconds(-1), S1));
    assertIae(
        "maxBackoff must be > 0 but was PT0S",
        () -> BackoffPolicy.exponential(MS100, Duration.ZERO));
  }

  @Test
  void exponential_rejectsMaxBelowMin() {
    assertIae(
        "maxBackoff must be >= minBackoff (PT1S) but was PT0.1S",
        () -> BackoffPolicy.exponential(S1, MS100));
  }

  @Test
  void exponential_rejectsDurationsTheSchedulerCannotHold() {
    assertIae(
        "maxBackoff must be <= PT4320H but was PT4344H",
        () -> BackoffPolicy.exponential(MS100, Duration.ofDays(181)));
  }

  @Test
  void exponential_acceptsEqualMinAndMax() {
    assertEquals(S1, BackoffPolicy.exponential(S1, S1).getMaxBackoff());
  }

  @Test
  void withMultiplier_rejectsBelowOneNaNAndInfinity() {
    assertIae(
        "multiplier must be a finite number >= 1.0 but was 0.99", () -> BASE.withMultiplier(0.99));
    assertIae(
        "multiplier must be a finite number >= 1.0 but was NaN",
        () -> BASE.withMultiplier(Double.NaN));
    assertIae(
        "multiplier must be a finite number >= 1.0 but was Infinity",
        () -> BASE.withMultiplier(Double.POSITIVE_INFINITY));
    assertEquals(1.0, BASE.withMultiplier(1.0).getMultiplier());
  }

  @Test
  void withJitter_rejectsNull() {
    assertNpe("jitter must not be null", () -> BASE.withJitter(null));
  }

  @Test
  void withResetAfter_rejectsNullZeroAndNegative() {
    assertNpe("resetAfter must not be null", () -> BASE.withResetAfter(null));
    assertIae("resetAfter must be > 0 but was PT0S", () -> BASE.withResetAfter(Duration.ZERO));
    assertIae(
        "resetAfter must be > 0 but was PT-0.001S",
        () -> BASE.withResetAfter(Duration.ofMillis(-1)));
  }

  @Test
  void withMaxRestarts_rejectsNegative() {
    assertIae("maxRestarts must be >= 0 but was -1", () -> BASE.withMaxRestarts(-1));
    assertEquals(OptionalInt.of(0), BASE.withMaxRestarts(0).getMaxRestarts());
  }

  @Test
  void withStashCapacity_rejectsNegative() {
    assertIae("stashCapacity must be >= 0 but was -5", () -> BASE.withStashCapacity(-5));
    assertEquals(OptionalInt.of(0), BASE.withStashCapacity(0).getStashCapacitySetting());
  }

  @Test
  @SuppressWarnings("unchecked")
  void withStopOn_rejectsNulls() {
    assertNpe("types must not be null", () -> BASE.withStopOn((Class<? extends Throwable>[]) null));
    assertNpe("types[1] must not be null", () -> BASE.withStopOn(IOException.class, null));
  }

  @Test
  @SuppressWarnings("unchecked")
  void withRestartOn_rejectsNullsAndDropsDuplicates() {
    assertNpe(
        "types must not be null", () -> BASE.withRestartOn((Class<? extends Throwable>[]) null));
    assertNpe("types[1] must not be null", () -> BASE.withRestartOn(IOException.class, null));
    assertEquals(
        List.of(IOException.class),
        BASE.withRestartOn(IOException.class, IOException.class).getRestartOn());
    assertEquals(List.of(), BASE.withRestartOn(IOException.class).withRestartOn().getRestartOn());
  }

  @Test
  void withStopOnPredicate_isReturnedByItsGetter() {
    java.util.function.Predicate<Throwable> rule = t -> false;
    assertSame(rule, BASE.withStopOn(rule).getStopOnPredicate().orElseThrow());
  }

  @Test
  void withStopOnPredicate_rejectsNull() {
    assertNpe(
        "stopOn must not be null",
        () -> BASE.withStopOn((java.util.function.Predicate<Throwable>) null));
  }

  @Test
  void withStopChildren_canBeTurnedOffAndOn() {
    assertFalse(BASE.withStopChildren(false).isStopChildren());
    assertTrue(BASE.withStopChildren(false).withStopChildren(true).isStopChildren());
    assertEquals(BASE, BASE.withStopChildren(false).withStopChildren(true));
  }

  @Test
  void withMaxRetryAfter_rejectsNullZeroAndNegative() {
    assertNpe("maxRetryAfter must not be null", () -> BASE.withMaxRetryAfter(null));
    assertIae(
        "maxRetryAfter must be > 0 but was PT0S", () -> BASE.withMaxRetryAfter(Duration.ZERO));
  }

  @Test
  void logSettings_rejectNullsAndBadCounts() {
    assertNpe("logLevel must not be null", () -> BASE.withLogLevel(null));
    assertNpe("criticalLogLevel must not be null", () -> BASE.withCriticalLogLevel(null, 1));
    assertIae(
        "afterFailures must be >= 1 but was 0", () -> BASE.withCriticalLogLevel(Level.ERROR, 0));
    assertEquals(1, BASE.withCriticalLogLevel(Level.ERROR, 1).getCriticalLogLevelAfter());
  }

  @Test
  void withListener_rejectsNull() {
    assertNpe("listener must not be null", () -> BASE.withListener(null));
  }

  @Test
  void delays_rejectsNull() {
    assertNpe("random must not be null", () -> BASE.delays(null));
  }

  @Test
  void delays_areTheUnjitteredScheduleForJitterNone() {
    List<Long> millis =
        BASE.withJitter(Jitter.none())
            .delays(new SplittableRandom(1))
            .limit(7)
            .map(Duration::toMillis)
            .collect(Collectors.toList());
    assertEquals(List.of(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L), millis);
  }

  @Test
  void delays_stopAtMaxRestarts() {
    assertEquals(3, BASE.withMaxRestarts(3).delays(new SplittableRandom(1)).count());
    assertEquals(0, BASE.withMaxRestarts(0).delays(new SplittableRandom(1)).count());
  }

  @Test
  void delays_areReproducibleForTheSameSeed() {
    List<Duration> a = BASE.delays(new SplittableRandom(7)).limit(50).collect(Collectors.toList());
    List<Duration> b = BASE.delays(new SplittableRandom(7)).limit(50).collect(Collectors.toList());
    List<Duration> c = BASE.delays(new SplittableRandom(8)).limit(50).collect(Collectors.toList());
    assertEquals(a, b);
    assertNotEquals(a, c);
  }

  /**
   * The literal schedule of seed 7 (full jitter, 100 ms to 1 s), so that the reproducibility test
   * above is not the only guard: each value is {@code (long) (bound * u)} with the bounds 100, 200,
   * 400, 800 ms and then 1 s, and {@code u} the JDK's {@code new SplittableRandom(7).nextDouble()}
   * draws, computed outside the library.
   */
  @Test
  void delays_forSeed7AreTheseLiteralValues() {
    List<Long> nanos =
        BASE.delays(new SplittableRandom(7))
            .limit(8)
            .map(Duration::toNanos)
            .collect(Collectors.toList());
    assertEquals(
        List.of(
            38_982_974L,
            3_357_658L,
            360_304_272L,
            466_344_234L,
            452_441_895L,
            249_431_522L,
            467_953_004L,
            328_076_739L),
        nanos);
  }

  @Test
  void delays_neverExceedTheCapWithAnyJitter() {
    for (Jitter jitter :
        List.of(
            Jitter.full(),
            Jitter.equal(),
            Jitter.decorrelated(),
            Jitter.none(),
            (Jitter) (step, draw) -> step.maxBackoff().multipliedBy(10))) {
      BASE.withJitter(jitter)
          .withMultiplier(10)
          .delays(new SplittableRandom(3))
          .limit(10_000)
          .forEach(d -> assertTrue(!d.isNegative() && d.compareTo(S1) <= 0, jitter + " gave " + d));
    }
  }
}
