package io.leaderelection.actuate.health;

import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Runtime hints for the health details of leader election: a sharded election's {@link Shard}
 * and its group's {@link LeaderStatus.Group} are shown as they are, records that Jackson writes
 * through their accessors. (The {@code leader} endpoint's answers need no hints of their own:
 * Spring Boot registers its operations' return types.)
 */
class LeaderElectionHealthRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), Shard.class,
				LeaderStatus.Group.class);
	}

}
