package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The token bucket's numbers, exactly: slices, shares, takes, caps and every rejected argument. */
final class TokenBucketExactArithmeticTest {

  private static void rejects(String message, Executable call) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
  }

  @Test
  void forRate_cutsThePeriodIntoAtMostPermitsSlicesOfAtLeast100ms() {
    // 10 per second: 10 slices of 100 ms, one token each; starts full with the burst
    TokenBucket b = TokenBucket.forRate(10, Duration.ofSeconds(1), 3, 1);
    assertEquals(Duration.ofMillis(100), b.slice());
    assertEquals(100_000_000L, b.sliceNanos());
    assertEquals(1.0, b.tokensPerSlice(), 0.0);
    assertEquals(3.0, b.capacity(), 0.0);
    assertEquals(3.0, b.tokens(), 0.0);
    // 5 per 250 ms: only 2 slices of 100 ms fit, 125 ms each, 2.5 tokens each
    TokenBucket c = TokenBucket.forRate(5, Duration.ofMillis(250), 1, 1);
    assertEquals(Duration.ofMillis(125), c.slice());
    assertEquals(2.5, c.tokensPerSlice(), 0.0);
    // 3 per 10 s: 3 slices (fewer permits than 100 ms slices), 3334 ms each (3333.33 rounded up)
    TokenBucket d = TokenBucket.forRate(3, Duration.ofSeconds(10), 1, 1);
    assertEquals(Duration.ofMillis(3334), d.slice());
    assertEquals(1.0, d.tokensPerSlice(), 0.0);
    // a period shorter than 100 ms is one slice
    TokenBucket e = TokenBucket.forRate(4, Duration.ofMillis(30), 1, 1);
    assertEquals(Duration.ofMillis(30), e.slice());
    assertEquals(4.0, e.tokensPerSlice(), 0.0);
  }

  @Test
  void forRate_roundsTheSliceUpToAWholeMillisecond_evenForOneNanosecondMore() {
    // 1 s + 1 ns in 10 slices: 100,000,001 ns each, rounded up to 101 ms
    TokenBucket b = TokenBucket.forRate(10, Duration.ofNanos(1_000_000_001L), 1, 1);
    assertEquals(Duration.ofMillis(101), b.slice());
    // 1 s - 1 ns in 9 slices: 111,111,111 ns each, rounded up to 112 ms
    assertEquals(
        Duration.ofMillis(112),
        TokenBucket.forRate(9, Duration.ofNanos(999_999_999L), 1, 1).slice());
  }

  @Test
  void forRate_givesEachMemberItsShareOfRateAndBurst_butAtLeastOneTokenOfCapacity() {
    // 40 per second among 4 members: 10 slices of 1 token / 4 = 0.25; burst 12 / 4 = 3
    TokenBucket b = TokenBucket.forRate(40, Duration.ofSeconds(1), 12, 4);
    assertEquals(1.0, b.tokensPerSlice(), 0.0);
    assertEquals(3.0, b.capacity(), 0.0);
    assertEquals(3.0, b.tokens(), 0.0);
    // 10 per second among 4: 0.25 tokens per slice; burst 2 / 4 = 0.5, raised to 1
    TokenBucket c = TokenBucket.forRate(10, Duration.ofSeconds(1), 2, 4);
    assertEquals(0.25, c.tokensPerSlice(), 0.0);
    assertEquals(1.0, c.capacity(), 0.0);
    assertEquals(1.0, c.tokens(), 0.0);
    // 5 per second, burst 7, among 2: 5 slices of 200 ms, 0.5 tokens each; capacity 3.5
    TokenBucket d = TokenBucket.forRate(5, Duration.ofSeconds(1), 7, 2);
    assertEquals(Duration.ofMillis(200), d.slice());
    assertEquals(0.5, d.tokensPerSlice(), 0.0);
    assertEquals(3.5, d.capacity(), 0.0);
  }

  @Test
  void forRate_keepsTheSliceOfAPeriodOfCenturiesPositive() {
    // 300 years do not fit in a long of nanoseconds: the period saturates, and so does the slice
    assertEquals(
        Duration.ofMillis(Long.MAX_VALUE / 1_000_000),
        TokenBucket.forRate(1, Duration.ofDays(300 * 365L), 1, 1).slice());
    // two slices of half of Long.MAX_VALUE nanoseconds, rounded up to a millisecond
    assertEquals(
        Duration.ofMillis(4_611_686_018_428L),
        TokenBucket.forRate(2, Duration.ofSeconds(Long.MAX_VALUE), 1, 1).slice());
  }

  @Test
  void forRate_acceptsTheSmallestValues() {
    TokenBucket b = TokenBucket.forRate(1, Duration.ofMillis(1), 1, 1);
    assertEquals(Duration.ofMillis(1), b.slice());
    assertEquals(1.0, b.tokensPerSlice(), 0.0);
    assertEquals(1.0, b.capacity(), 0.0);
  }

  @Test
  void forRate_rejectsEachBadArgument_namingItAndTheValue() {
    assertEquals(
        "period must not be null",
        assertThrows(NullPointerException.class, () -> TokenBucket.forRate(1, null, 1, 1))
            .getMessage());
    rejects(
        "permits must be >= 1 but was -3",
        () -> TokenBucket.forRate(-3, Duration.ofSeconds(1), 1, 1));
    rejects(
        "period must be >= 1 ms but was PT0.000999999S",
        () -> TokenBucket.forRate(1, Duration.ofNanos(999_999), 1, 1));
    rejects(
        "period must be >= 1 ms but was PT-1S",
        () -> TokenBucket.forRate(1, Duration.ofSeconds(-1), 1, 1));
    rejects(
        "burst must be >= 1 but was 0", () -> TokenBucket.forRate(1, Duration.ofSeconds(1), 0, 1));
    rejects(
        "members must be >= 1 but was -1",
        () -> TokenBucket.forRate(1, Duration.ofSeconds(1), 1, -1));
  }

  @Test
  void perSlice_keepsTheNumbersAsGiven() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(250), 0.5, 4, 1.5);
    assertEquals(Duration.ofMillis(250), b.slice());
    assertEquals(250_000_000L, b.sliceNanos());
    assertEquals(0.5, b.tokensPerSlice(), 0.0);
    assertEquals(4.0, b.capacity(), 0.0);
    assertEquals(1.5, b.tokens(), 0.0);
    // zero is allowed for every number
    TokenBucket z = TokenBucket.perSlice(Duration.ofNanos(1), 0, 0, 0);
    assertEquals(1L, z.sliceNanos());
    assertEquals(0.0, z.tokens(), 0.0);
  }

  @Test
  void perSlice_saturatesASliceTooLongForNanoseconds() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofSeconds(Long.MAX_VALUE), 1, 1, 1);
    assertEquals(Long.MAX_VALUE, b.sliceNanos());
  }

  @Test
  void perSlice_rejectsEachBadArgument_namingItAndTheValue() {
    assertEquals(
        "slice must not be null",
        assertThrows(NullPointerException.class, () -> TokenBucket.perSlice(null, 1, 1, 1))
            .getMessage());
    Duration s = Duration.ofMillis(100);
    rejects("slice must be > 0 but was PT0S", () -> TokenBucket.perSlice(Duration.ZERO, 1, 1, 1));
    rejects(
        "slice must be > 0 but was PT-0.001S",
        () -> TokenBucket.perSlice(Duration.ofMillis(-1), 1, 1, 1));
    rejects(
        "tokensPerSlice must be finite and >= 0 but was -0.5",
        () -> TokenBucket.perSlice(s, -0.5, 1, 1));
    rejects(
        "tokensPerSlice must be finite and >= 0 but was NaN",
        () -> TokenBucket.perSlice(s, Double.NaN, 1, 1));
    rejects(
        "tokensPerSlice must be finite and >= 0 but was Infinity",
        () -> TokenBucket.perSlice(s, Double.POSITIVE_INFINITY, 1, 1));
    rejects(
        "capacity must be finite and >= 0 but was -1.0", () -> TokenBucket.perSlice(s, 1, -1, 1));
    rejects(
        "capacity must be finite and >= 0 but was Infinity",
        () -> TokenBucket.perSlice(s, 1, Double.POSITIVE_INFINITY, 1));
    rejects(
        "initialTokens must be finite and >= 0 but was -2.0",
        () -> TokenBucket.perSlice(s, 1, 1, -2));
    rejects(
        "initialTokens must be finite and >= 0 but was Infinity",
        () -> TokenBucket.perSlice(s, 1, 1, Double.POSITIVE_INFINITY));
  }

  @Test
  void tryTake_takesExactlyOneWholeToken() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 0.5, 5, 2.5);
    assertTrue(b.tryTake());
    assertEquals(1.5, b.tokens(), 0.0);
    assertTrue(b.tryTake());
    assertEquals(0.5, b.tokens(), 0.0);
    assertFalse(b.tryTake()); // half a token is not a token
    assertEquals(0.5, b.tokens(), 0.0);
    b.refill(); // exactly one token: enough
    assertEquals(1.0, b.tokens(), 0.0);
    assertTrue(b.tryTake());
    assertEquals(0.0, b.tokens(), 0.0);
    assertFalse(b.tryTake());
    assertEquals(0.0, b.tokens(), 0.0);
  }

  @Test
  void refillAddsTokensPerSlice_andSettleCapsOnlyWhatIsAboveTheCapacity() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 1.5, 4, 1);
    b.refill();
    assertEquals(2.5, b.tokens(), 0.0);
    b.settle(); // below the capacity: unchanged
    assertEquals(2.5, b.tokens(), 0.0);
    assertFalse(b.isFull());
    b.refill();
    b.refill();
    assertEquals(5.5, b.tokens(), 0.0);
    assertTrue(b.isFull()); // above the capacity counts as full
    b.settle();
    assertEquals(4.0, b.tokens(), 0.0);
    assertTrue(b.isFull()); // exactly the capacity is full
  }

  @Test
  void isFull_isFalseJustBelowTheCapacity() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 1, 2, 1.999);
    assertFalse(b.isFull());
    b.setTokens(2);
    assertTrue(b.isFull());
  }

  @Test
  void reshape_changesRateAndCapacity_andCapsTheTokensAtTheNewCapacity() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 1, 10, 8);
    b.reshape(0.25, 3);
    assertEquals(0.25, b.tokensPerSlice(), 0.0);
    assertEquals(3.0, b.capacity(), 0.0);
    assertEquals(3.0, b.tokens(), 0.0);
    b.reshape(2, 6); // a larger capacity keeps the tokens
    assertEquals(3.0, b.tokens(), 0.0);
    b.refill();
    assertEquals(5.0, b.tokens(), 0.0);
    b.reshape(0, 0); // zero is allowed
    assertEquals(0.0, b.tokens(), 0.0);
    assertEquals(0.0, b.tokensPerSlice(), 0.0);
  }

  @Test
  void reshape_rejectsBadArguments_andKeepsTheBucketAsItWas() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 1, 2, 2);
    rejects("tokensPerSlice must be finite and >= 0 but was -1.0", () -> b.reshape(-1, 2));
    rejects("tokensPerSlice must be finite and >= 0 but was NaN", () -> b.reshape(Double.NaN, 2));
    rejects(
        "tokensPerSlice must be finite and >= 0 but was Infinity",
        () -> b.reshape(Double.POSITIVE_INFINITY, 2));
    rejects("capacity must be finite and >= 0 but was -0.5", () -> b.reshape(1, -0.5));
    rejects("capacity must be finite and >= 0 but was NaN", () -> b.reshape(1, Double.NaN));
    rejects(
        "capacity must be finite and >= 0 but was Infinity",
        () -> b.reshape(1, Double.POSITIVE_INFINITY));
    assertEquals(1.0, b.tokensPerSlice(), 0.0);
    assertEquals(2.0, b.capacity(), 0.0);
    assertEquals(2.0, b.tokens(), 0.0);
  }

  @Test
  void setTokens_setsThem_andRejectsNegativeOrInfiniteCounts() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 1, 2, 2);
    b.setTokens(0);
    assertEquals(0.0, b.tokens(), 0.0);
    b.setTokens(7.5); // not capped until settle
    assertEquals(7.5, b.tokens(), 0.0);
    rejects("tokens must be finite and >= 0 but was -1.0", () -> b.setTokens(-1));
    rejects("tokens must be finite and >= 0 but was NaN", () -> b.setTokens(Double.NaN));
    rejects(
        "tokens must be finite and >= 0 but was Infinity",
        () -> b.setTokens(Double.POSITIVE_INFINITY));
    assertEquals(7.5, b.tokens(), 0.0);
  }

  @Test
  void toStringShowsEveryNumber() {
    TokenBucket b = TokenBucket.forRate(5, Duration.ofSeconds(1), 7, 2);
    b.tryTake();
    assertEquals(
        "TokenBucket{slice=PT0.2S, tokensPerSlice=0.5, capacity=3.5, tokens=2.5}", b.toString());
  }
}
