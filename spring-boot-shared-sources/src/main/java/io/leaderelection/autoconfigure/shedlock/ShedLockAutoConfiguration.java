package io.leaderelection.autoconfigure.shedlock;

import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.LeaderElectionThreads;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of ShedLock's {@link LockProvider} on leader election, where ShedLock is on
 * the class path and the application has no {@code LockProvider} of its own: the leader of
 * {@code leader.election.shedlock.election} takes the locks, each recorded in its Lease.
 */
@AutoConfiguration(after = LeaderOnlyAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(WindowedStarts.class)
@ConditionalOnMissingBean(LockProvider.class)
public class ShedLockAutoConfiguration {

	@Bean
	ElectionLockProvider electionLockProvider(ElectionEngine leaderElector, WindowedStarts windowedStarts,
			LeaderElectionProperties properties, LeaderElectionThreads threads) {
		return new ElectionLockProvider(windowedStarts,
				LockElection.of(leaderElector, properties.getShedlock().getElection()), threads.runtime().scheduler());
	}

	@Bean
	ElectionLockCounts electionLockCounts(ElectionLockProvider electionLockProvider) {
		return electionLockProvider.counts();
	}

}
