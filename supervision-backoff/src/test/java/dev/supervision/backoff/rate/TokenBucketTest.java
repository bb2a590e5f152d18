package dev.supervision.backoff.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class TokenBucketTest {

  @Test
  void slicesAreWholeMilliseconds_roundedUp() {
    assertEquals(
        Duration.ofMillis(117), TokenBucket.forRate(10, Duration.ofMillis(350), 1, 1).slice());
    assertEquals(
        Duration.ofMillis(143), TokenBucket.forRate(7, Duration.ofSeconds(1), 1, 1).slice());
    assertEquals(
        Duration.ofMillis(100), TokenBucket.forRate(1000, Duration.ofSeconds(1), 100, 1).slice());
    assertEquals(
        Duration.ofMillis(10), TokenBucket.forRate(5, Duration.ofMillis(10), 1, 1).slice());
  }

  @Test
  void noWindowOfOnePeriodGetsMoreThanPermitsPlusCapacity() {
    // a waiter always present: count grants in every window of one period (at millisecond
    // resolution)
    for (int[] c :
        new int[][] {{10, 350, 1}, {7, 1000, 1}, {3, 1000, 2}, {1000, 1000, 100}, {13, 777, 5}}) {
      TokenBucket b = TokenBucket.forRate(c[0], Duration.ofMillis(c[1]), c[2], 1);
      int horizon = 100 * c[1];
      int[] grantsAt = new int[horizon + 1];
      long slice = b.slice().toMillis();
      for (int t = 0; t <= horizon; t++) {
        if (t > 0 && t % slice == 0) {
          b.refill();
        }
        while (b.tryTake()) {
          grantsAt[t]++;
          // a single instant never holds more than one refill plus the capacity
          assertTrue(grantsAt[t] <= c[0] + c[2], "at " + t + " ms: " + grantsAt[t]);
        }
        b.settle();
      }
      int inWindow = 0;
      int most = 0;
      for (int t = 0; t <= horizon; t++) {
        inWindow += grantsAt[t] - (t >= c[1] ? grantsAt[t - c[1]] : 0);
        most = Math.max(most, inWindow);
      }
      assertTrue(
          most <= c[0] + c[2],
          "permits " + c[0] + " period " + c[1] + " burst " + c[2] + ": " + most);
    }
  }

  @Test
  void aShareGetsItsFractionOfTheRateAndAtLeastOneTokenOfCapacity() {
    TokenBucket b = TokenBucket.forRate(30, Duration.ofSeconds(1), 3, 3);
    assertEquals(1.0, b.tokensPerSlice(), 1e-12);
    assertEquals(1.0, b.capacity(), 1e-12);
  }

  @Test
  void refillMayExceedTheCapacityUntilSettled() {
    TokenBucket b = TokenBucket.perSlice(Duration.ofMillis(100), 5, 2, 2);
    b.refill();
    assertEquals(7, b.tokens(), 1e-12);
    b.settle();
    assertEquals(2, b.tokens(), 1e-12);
    assertTrue(b.isFull());
  }

  @Test
  void rejectsBadArguments_namingThem() {
    assertEquals(
        "permits must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () -> TokenBucket.forRate(0, Duration.ofSeconds(1), 1, 1))
            .getMessage());
    assertEquals(
        "members must be >= 1 but was 0",
        assertThrows(
                IllegalArgumentException.class,
                () -> TokenBucket.forRate(1, Duration.ofSeconds(1), 1, 0))
            .getMessage());
  }
}
