package dev.supervision.backoff;

import dev.supervision.backoff.internal.policy.PolicyConfig;
import dev.supervision.backoff.internal.util.ParameterException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One key of a restart budget block ({@code noDefault}: what the docs say for a key without a
 * default), and the table of all of them: what {@link PolicySetting} is for a policy. Values go
 * through {@link RestartBudget}'s validating methods; a rule broken is reported under its key.
 * Package-private: not API.
 */
record BudgetSetting(String key, String noDefault, String allowed, String method) {

  static final BudgetSetting MODE =
      new BudgetSetting(
          "mode",
          null,
          "one of fixed, adaptive",
          "RestartBudget.of(name, permits, period), RestartBudget.adaptive(name)");

  static final BudgetSetting PERMITS =
      new BudgetSetting(
          "permits",
          "(required for `fixed`)",
          "a whole number >= 1",
          "RestartBudget.of(name, permits, period), Adaptive.withMaxRate(permits, period)");

  static final BudgetSetting PERIOD =
      new BudgetSetting(
          "period",
          "(required)",
          "a duration >= 10ms",
          "RestartBudget.of(name, permits, period), Adaptive.withMaxRate(permits, period)");

  static final BudgetSetting BURST =
      new BudgetSetting("burst", null, "auto or a whole number >= 1", "Fixed.withBurst(int)");

  static final BudgetSetting CLUSTER_WIDE =
      new BudgetSetting("cluster-wide", null, PolicyConfig.BOOLEAN, "clusterWide()");

  static final BudgetSetting PROBATION =
      new BudgetSetting(
          "probation", null, "a duration between 1ms and 1m", "Adaptive.withProbation(Duration)");

  static final BudgetSetting HOLD_AFTER =
      new BudgetSetting("hold-after", null, "a whole number >= 1", "Adaptive.withHoldAfter(int)");

  // in the order of reference.conf and the docs
  static final List<BudgetSetting> ALL =
      List.of(MODE, PERMITS, PERIOD, BURST, CLUSTER_WIDE, PROBATION, HOLD_AFTER);

  static final Map<String, String> ALLOWED =
      Collections.unmodifiableMap(
          ALL.stream()
              .collect(
                  Collectors.toMap(
                      BudgetSetting::key,
                      BudgetSetting::allowed,
                      (a, b) -> a,
                      LinkedHashMap::new)));

  static final List<String> KEYS = List.copyOf(ALLOWED.keySet());

  // the budget the policy's key names, or null if its value is null; mode decides the kind
  static RestartBudget read(PolicyConfig policy, String key) {
    PolicyConfig.Named named = policy.budget(key, ALLOWED);
    if (named == null) {
      return null;
    }
    PolicyConfig config = named.config();
    RestartBudget budget =
        config.oneOf(MODE.key(), List.of("fixed", "adaptive")).equals("adaptive")
            ? adaptive(config, named.name())
            : fixed(config, named.name());
    return config.bool(CLUSTER_WIDE.key()) ? budget.clusterWide() : budget;
  }

  private static RestartBudget.Fixed fixed(PolicyConfig config, String name) {
    int permits = config.integer(PERMITS.key(), PERMITS.allowed());
    Duration period = config.duration(PERIOD.key());
    RestartBudget.Fixed budget;
    try {
      budget = RestartBudget.of(name, permits, period);
    } catch (ParameterException e) {
      throw KEYS.contains(e.parameter()) ? config.invalid(e.parameter(), e) : e;
    }
    if (!config.isWord(BURST.key(), "auto")) {
      int burst = config.integer(BURST.key(), BURST.allowed());
      budget = config.apply(budget, BURST.key(), b -> b.withBurst(burst));
    }
    return budget;
  }

  // permits and period, if given, are the ceiling; burst is not read, so one default-budget block
  // serves both modes
  private static RestartBudget.Adaptive adaptive(PolicyConfig config, String name) {
    RestartBudget.Adaptive budget = RestartBudget.adaptive(name);
    Duration probation = config.duration(PROBATION.key(), PROBATION.allowed());
    budget = config.apply(budget, PROBATION.key(), b -> b.withProbation(probation));
    int holdAfter = config.integer(HOLD_AFTER.key(), HOLD_AFTER.allowed());
    budget = config.apply(budget, HOLD_AFTER.key(), b -> b.withHoldAfter(holdAfter));
    boolean hasPermits = config.has(PERMITS.key());
    if (hasPermits != config.has(PERIOD.key())) {
      throw config.bad(
          hasPermits ? PERMITS.key() : PERIOD.key(),
          "needs "
              + (hasPermits ? PERIOD.key() : PERMITS.key())
              + " beside it: together they set an adaptive budget's ceiling");
    }
    if (hasPermits) {
      int permits = config.integer(PERMITS.key(), PERMITS.allowed());
      Duration period = config.duration(PERIOD.key());
      // permits alone first (with a period known to be valid), so that each error names its key
      config.apply(budget, PERMITS.key(), b -> b.withMaxRate(permits, Duration.ofSeconds(1)));
      budget = config.apply(budget, PERIOD.key(), b -> b.withMaxRate(permits, period));
    }
    return budget;
  }
}
