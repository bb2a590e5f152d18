/**
 * Test a supervised actor's backoff in a few lines: {@link
 * dev.supervision.backoff.testkit.BackoffProbe} expects the backoff events of actors and moves the
 * manual clock to their restarts, {@link dev.supervision.backoff.testkit.BackoffTestKit} is the
 * JUnit 5 extension that owns a {@code ManualTime} test kit per test class. Add the module with test
 * scope.
 */
package dev.supervision.backoff.testkit;
