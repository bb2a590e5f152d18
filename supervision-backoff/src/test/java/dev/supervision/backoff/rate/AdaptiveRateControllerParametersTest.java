package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.supervision.backoff.rate.AdaptiveRateController.Parameters;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every parameter's rule, checked at both edges, and the copies that {@code withX} make; the
 * constructor's null checks.
 */
final class AdaptiveRateControllerParametersTest {

  private static final Duration MS100 = Duration.ofMillis(100);
  private static final double INF = Double.POSITIVE_INFINITY;

  /** The components of the defaults, in the record's order. */
  private static Object[] defaultComponents() {
    return new Object[] {
      MS100, MS100, 100.0, 5.0, INF, 0.9, 0.1, 0.2, MS100, Duration.ofMillis(300), 10
    };
  }

  /** Every component differs from the defaults, so a copy that drops one is seen. */
  private static Object[] customComponents() {
    return new Object[] {
      Duration.ofMillis(50),
      Duration.ofMillis(120),
      70.0,
      7.0,
      500.0,
      0.8,
      0.05,
      0.3,
      Duration.ofMillis(60),
      Duration.ofMillis(700),
      4
    };
  }

  private static Parameters of(Object[] a) {
    return new Parameters(
        (Duration) a[0],
        (Duration) a[1],
        (double) a[2],
        (double) a[3],
        (double) a[4],
        (double) a[5],
        (double) a[6],
        (double) a[7],
        (Duration) a[8],
        (Duration) a[9],
        (int) a[10]);
  }

  /** The defaults, with one component replaced through {@code edit}. */
  private static Parameters with(Function<Object[], Object[]> edit) {
    return of(edit.apply(defaultComponents()));
  }

  private static Parameters set(int index, Object value) {
    return with(
        a -> {
          a[index] = value;
          return a;
        });
  }

  private static void rejects(String message, Executable e) {
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
    assertEquals(message, x.getMessage());
  }

  @Test
  void defaults_areTheDocumentedValues() {
    Parameters p = Parameters.defaults();
    assertEquals(MS100, p.slice());
    assertEquals(MS100, p.probation());
    assertEquals(100.0, p.initialRate());
    assertEquals(5.0, p.minRate());
    assertEquals(INF, p.maxRate());
    assertEquals(0.9, p.decrease());
    assertEquals(0.1, p.tolerance());
    assertEquals(0.2, p.growth());
    assertEquals(MS100, p.firstProbe());
    assertEquals(Duration.ofMillis(300), p.maxProbeInterval());
    assertEquals(10, p.holdAfter());
    assertEquals(with(a -> a), p);
  }

  @Test
  void durations_mustNotBeNull_andTheMessageNamesThem() {
    String[] names = {"slice", "probation", "firstProbe", "maxProbeInterval"};
    int[] index = {0, 1, 8, 9};
    for (int i = 0; i < names.length; i++) {
      int at = index[i];
      NullPointerException e = assertThrows(NullPointerException.class, () -> set(at, null));
      assertEquals(names[i] + " must not be null", e.getMessage());
    }
  }

  @Test
  void durations_mustBePositive() {
    String[] names = {"slice", "probation", "firstProbe", "maxProbeInterval"};
    int[] index = {0, 1, 8, 9};
    for (int i = 0; i < names.length; i++) {
      int at = index[i];
      rejects(names[i] + " must be > 0 but was PT0S", () -> set(at, Duration.ZERO));
      rejects(names[i] + " must be > 0 but was PT-0.001S", () -> set(at, Duration.ofMillis(-1)));
    }
    assertEquals(Duration.ofNanos(1), set(1, Duration.ofNanos(1)).probation());
    assertEquals(Duration.ofNanos(1), set(8, Duration.ofNanos(1)).firstProbe());
    assertEquals(Duration.ofNanos(1), set(9, Duration.ofNanos(1)).maxProbeInterval());
  }

  @Test
  void slice_isBetweenOneMillisecondAndOneSecond_bothIncluded() {
    rejects(
        "slice must be between 1 ms and 1 s but was PT0.000999999S",
        () -> set(0, Duration.ofNanos(999_999)));
    rejects(
        "slice must be between 1 ms and 1 s but was PT1.000000001S",
        () -> set(0, Duration.ofNanos(1_000_000_001)));
    assertEquals(Duration.ofMillis(1), set(0, Duration.ofMillis(1)).slice());
    assertEquals(Duration.ofSeconds(1), set(0, Duration.ofSeconds(1)).slice());
  }

  @Test
  void initialRate_isFiniteAndPositive() {
    rejects("initialRate must be finite and > 0 but was 0.0", () -> set(2, 0.0));
    rejects("initialRate must be finite and > 0 but was -1.0", () -> set(2, -1.0));
    rejects("initialRate must be finite and > 0 but was Infinity", () -> set(2, INF));
    rejects("initialRate must be finite and > 0 but was NaN", () -> set(2, Double.NaN));
    assertEquals(Double.MIN_VALUE, set(2, Double.MIN_VALUE).initialRate());
  }

  @Test
  void minRate_isFiniteAndPositive() {
    rejects("minRate must be finite and > 0 but was 0.0", () -> set(3, 0.0));
    rejects("minRate must be finite and > 0 but was Infinity", () -> set(3, INF));
    rejects("minRate must be finite and > 0 but was NaN", () -> set(3, Double.NaN));
    assertEquals(Double.MIN_VALUE, set(3, Double.MIN_VALUE).minRate());
  }

  @Test
  void maxRate_isPositive_infinityMeaningNoCeiling() {
    rejects("maxRate must be > 0 but was 0.0", () -> set(4, 0.0));
    rejects("maxRate must be > 0 but was NaN", () -> set(4, Double.NaN));
    assertEquals(INF, set(4, INF).maxRate());
    assertEquals(5.0, set(4, 5.0).maxRate());
  }

  @Test
  void decrease_isInZeroOne_oneIncluded() {
    rejects("decrease must be in (0, 1] but was 0.0", () -> set(5, 0.0));
    rejects("decrease must be in (0, 1] but was 1.0000001", () -> set(5, 1.0000001));
    rejects("decrease must be in (0, 1] but was NaN", () -> set(5, Double.NaN));
    assertEquals(1.0, set(5, 1.0).decrease());
    assertEquals(Double.MIN_VALUE, set(5, Double.MIN_VALUE).decrease());
  }

  @Test
  void tolerance_isInZeroOne_zeroIncluded() {
    rejects("tolerance must be in [0, 1) but was 1.0", () -> set(6, 1.0));
    rejects("tolerance must be in [0, 1) but was -1.0E-9", () -> set(6, -1e-9));
    rejects("tolerance must be in [0, 1) but was NaN", () -> set(6, Double.NaN));
    assertEquals(0.0, set(6, 0.0).tolerance());
    assertEquals(0.999, set(6, 0.999).tolerance());
  }

  @Test
  void growth_isFiniteAndNotNegative() {
    rejects("growth must be finite and >= 0 but was -1.0E-9", () -> set(7, -1e-9));
    rejects("growth must be finite and >= 0 but was Infinity", () -> set(7, INF));
    rejects("growth must be finite and >= 0 but was NaN", () -> set(7, Double.NaN));
    assertEquals(0.0, set(7, 0.0).growth());
  }

  @Test
  void holdAfter_isAtLeastOne() {
    rejects("holdAfter must be >= 1 but was 0", () -> set(10, 0));
    rejects("holdAfter must be >= 1 but was -5", () -> set(10, -5));
    assertEquals(1, set(10, 1).holdAfter());
  }

  @Test
  void minRateAboveMaxRate_conflicts_andTheMessageNamesBoth() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                with(
                    a -> {
                      a[3] = 6.0;
                      a[4] = 5.0;
                      return a;
                    }));
    assertEquals("minRate (6.0) must be <= maxRate (5.0)", e.getMessage());
    assertDoesNotThrow(
        () ->
            with(
                a -> {
                  a[3] = 5.0;
                  a[4] = 5.0;
                  return a;
                }));
  }

  @Test
  void withProbation_changesOnlyTheProbation() {
    Parameters p = custom().withProbation(Duration.ofMillis(250));
    assertEquals(customWith(1, Duration.ofMillis(250)), p);
  }

  @Test
  void withInitialRate_changesOnlyTheInitialRate() {
    assertEquals(customWith(2, 42.0), custom().withInitialRate(42.0));
  }

  @Test
  void withHoldAfter_changesOnlyTheThreshold() {
    assertEquals(customWith(10, 3), custom().withHoldAfter(3));
  }

  @Test
  void withMaxRate_keepsInitialAndMinimalRatesBelowIt() {
    // custom(): initialRate 70, minRate 7, maxRate 500
    assertEquals(customWith(4, 80.0), custom().withMaxRate(80.0));
    Parameters lowered = custom().withMaxRate(6.0);
    assertEquals(6.0, lowered.maxRate());
    assertEquals(6.0, lowered.initialRate());
    assertEquals(6.0, lowered.minRate());
    Parameters between = custom().withMaxRate(50.0);
    assertEquals(50.0, between.initialRate());
    assertEquals(7.0, between.minRate());
    assertEquals(INF, custom().withMaxRate(INF).maxRate());
  }

  @Test
  void withMaxRate_namesMaxRateWhenItIsRejected() {
    // not initialRate or minRate, which would be lowered to the rejected value
    rejects("maxRate must be > 0 but was 0.0", () -> custom().withMaxRate(0));
    rejects("maxRate must be > 0 but was -3.0", () -> custom().withMaxRate(-3));
    rejects("maxRate must be > 0 but was NaN", () -> custom().withMaxRate(Double.NaN));
  }

  @Test
  void withX_validateTheNewValue() {
    rejects(
        "maxProbeInterval must be > 0 but was PT0S",
        () ->
            with(
                a -> {
                  a[9] = Duration.ZERO;
                  return a;
                }));
    rejects(
        "initialRate must be finite and > 0 but was NaN",
        () -> custom().withInitialRate(Double.NaN));
  }

  @Test
  void parameters_nameTheRejectedValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Parameters.defaults().withInitialRate(0));
    assertEquals("initialRate must be finite and > 0 but was 0.0", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Parameters.defaults().withProbation(Duration.ZERO));
    assertEquals("probation must be > 0 but was PT0S", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Parameters.defaults().withHoldAfter(0));
    assertEquals("holdAfter must be >= 1 but was 0", e.getMessage());
    assertThrows(NullPointerException.class, () -> Parameters.defaults().withProbation(null));
  }

  @Test
  void constructor_rejectsNulls() {
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> new AdaptiveRateController(null));
    assertEquals("parameters must not be null", e.getMessage());
    e =
        assertThrows(
            NullPointerException.class,
            () -> new AdaptiveRateController(Parameters.defaults(), null));
    assertEquals("listener must not be null", e.getMessage());
  }

  private static Parameters custom() {
    return of(customComponents());
  }

  private static Parameters customWith(int index, Object value) {
    Object[] a = customComponents();
    a[index] = value;
    return of(a);
  }
}
