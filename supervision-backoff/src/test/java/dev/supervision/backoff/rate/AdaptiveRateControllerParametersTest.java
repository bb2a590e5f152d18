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
 * constructor's null checks. The slice and the rules' factors are constants.
 */
final class AdaptiveRateControllerParametersTest {

  private static final Duration MS100 = Duration.ofMillis(100);
  private static final double INF = Double.POSITIVE_INFINITY;

  /** The components of the defaults, in the record's order. */
  private static Object[] defaultComponents() {
    return new Object[] {MS100, 100.0, INF, 10, 5.0, MS100};
  }

  /** Every component differs from the defaults, so a copy that drops one is seen. */
  private static Object[] customComponents() {
    return new Object[] {Duration.ofMillis(120), 70.0, 500.0, 4, 7.0, Duration.ofMillis(60)};
  }

  private static Parameters of(Object[] a) {
    return new Parameters(
        (Duration) a[0], (double) a[1], (double) a[2], (int) a[3], (double) a[4], (Duration) a[5]);
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
    assertEquals(MS100, p.probation());
    assertEquals(100.0, p.initialRate());
    assertEquals(INF, p.maxRate());
    assertEquals(10, p.holdAfter());
    assertEquals(5.0, p.minRate());
    assertEquals(MS100, p.firstProbe());
    assertEquals(with(a -> a), p);
    assertEquals(MS100, AdaptiveRateController.SLICE);
  }

  @Test
  void durations_mustNotBeNull_andTheMessageNamesThem() {
    String[] names = {"probation", "firstProbe"};
    int[] index = {0, 5};
    for (int i = 0; i < names.length; i++) {
      int at = index[i];
      NullPointerException e = assertThrows(NullPointerException.class, () -> set(at, null));
      assertEquals(names[i] + " must not be null", e.getMessage());
    }
  }

  @Test
  void durations_mustBePositive() {
    String[] names = {"probation", "firstProbe"};
    int[] index = {0, 5};
    for (int i = 0; i < names.length; i++) {
      int at = index[i];
      rejects(names[i] + " must be > 0 but was PT0S", () -> set(at, Duration.ZERO));
      rejects(names[i] + " must be > 0 but was PT-0.001S", () -> set(at, Duration.ofMillis(-1)));
    }
    assertEquals(Duration.ofNanos(1), set(0, Duration.ofNanos(1)).probation());
    assertEquals(Duration.ofNanos(1), set(5, Duration.ofNanos(1)).firstProbe());
  }

  @Test
  void initialRate_isFiniteAndPositive() {
    rejects("initialRate must be finite and > 0 but was 0.0", () -> set(1, 0.0));
    rejects("initialRate must be finite and > 0 but was -1.0", () -> set(1, -1.0));
    rejects("initialRate must be finite and > 0 but was Infinity", () -> set(1, INF));
    rejects("initialRate must be finite and > 0 but was NaN", () -> set(1, Double.NaN));
    assertEquals(Double.MIN_VALUE, set(1, Double.MIN_VALUE).initialRate());
  }

  @Test
  void minRate_isFiniteAndPositive() {
    rejects("minRate must be finite and > 0 but was 0.0", () -> set(4, 0.0));
    rejects("minRate must be finite and > 0 but was Infinity", () -> set(4, INF));
    rejects("minRate must be finite and > 0 but was NaN", () -> set(4, Double.NaN));
    assertEquals(Double.MIN_VALUE, set(4, Double.MIN_VALUE).minRate());
  }

  @Test
  void maxRate_isPositive_infinityMeaningNoCeiling() {
    rejects("maxRate must be > 0 but was 0.0", () -> set(2, 0.0));
    rejects("maxRate must be > 0 but was NaN", () -> set(2, Double.NaN));
    assertEquals(INF, set(2, INF).maxRate());
    assertEquals(5.0, set(2, 5.0).maxRate());
  }

  @Test
  void holdAfter_isAtLeastOne() {
    rejects("holdAfter must be >= 1 but was 0", () -> set(3, 0));
    rejects("holdAfter must be >= 1 but was -5", () -> set(3, -5));
    assertEquals(1, set(3, 1).holdAfter());
  }

  @Test
  void minRateAboveMaxRate_conflicts_andTheMessageNamesBoth() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                with(
                    a -> {
                      a[4] = 6.0;
                      a[2] = 5.0;
                      return a;
                    }));
    assertEquals("minRate (6.0) must be <= maxRate (5.0)", e.getMessage());
    assertDoesNotThrow(
        () ->
            with(
                a -> {
                  a[4] = 5.0;
                  a[2] = 5.0;
                  return a;
                }));
  }

  @Test
  void withProbation_changesOnlyTheProbation() {
    Parameters p = custom().withProbation(Duration.ofMillis(250));
    assertEquals(customWith(0, Duration.ofMillis(250)), p);
  }

  @Test
  void withInitialRate_changesOnlyTheInitialRate() {
    assertEquals(customWith(1, 42.0), custom().withInitialRate(42.0));
  }

  @Test
  void withHoldAfter_changesOnlyTheThreshold() {
    assertEquals(customWith(3, 3), custom().withHoldAfter(3));
  }

  @Test
  void withMaxRate_keepsInitialAndMinimalRatesBelowIt() {
    // custom(): initialRate 70, minRate 7, maxRate 500
    assertEquals(customWith(2, 80.0), custom().withMaxRate(80.0));
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
    rejects("holdAfter must be >= 1 but was 0", () -> custom().withHoldAfter(0));
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
