/**
 * Cluster-wide restart budgets for Pekko Cluster. Put this module on the classpath and mark a budget
 * {@link dev.supervision.backoff.RestartBudget#clusterWide()}: each node then enforces its share,
 * {@code 1/N} of the permits and of the burst, where {@code N} counts the members from joining until
 * removed (reachable or not), and adjusts it as members come and go. Nothing else to call: the core
 * finds this module with {@link java.util.ServiceLoader}.
 */
package dev.supervision.backoff.cluster;
