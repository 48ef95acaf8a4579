/**
 * The bad-input suite: what a user, an operator or a cluster can get wrong, and what the
 * elector does about it. Configuration that cannot work (impossible timings, zero or negative
 * durations, names that are not DNS-1123, an identity too long) stops the start with a failure
 * analysis naming the property, in
 * {@code LeaderElectionAutoConfigurationTests.invalidConfigurationFailsTheStartNamingTheProperty}.
 * What goes wrong at run time is here: an API server that refuses, fails or does not answer
 * ({@link io.leaderelection.badinput.UnreachableApiTests}) and Leases written by hand or by
 * other tools ({@link io.leaderelection.badinput.HandEditedLeaseTests}). The elector keeps
 * running, says why in its status, never opens its gate on a Lease it could not write and never
 * writes over a Lease it could not read.
 */
package io.leaderelection.badinput;
