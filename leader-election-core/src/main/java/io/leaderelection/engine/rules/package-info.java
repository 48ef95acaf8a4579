/**
 * The election's rules, with no store, no scheduler, no clock and no lock: functions from what a
 * replica saw or was answered to the step it takes next ({@link io.leaderelection.engine.rules.FollowerStep},
 * {@link io.leaderelection.engine.rules.LeaderStep}). The engine's modes carry the steps out. Not
 * an API: public only so that the engine, in the package above, can call them.
 */
package io.leaderelection.engine.rules;
