package io.leaderelection.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderElectionFailureAnalyzer}.
 */
class LeaderElectionFailureAnalyzerTests {

	private final LeaderElectionFailureAnalyzer analyzer = new LeaderElectionFailureAnalyzer();

	@Test
	void describesThePropertyItsValueAndTheReason() {
		InvalidLeaderElectionPropertyException failure = new InvalidLeaderElectionPropertyException(
				"leader.election.renew-deadline", Duration.ofSeconds(20), "must be shorter than the lease duration");
		FailureAnalysis analysis = this.analyzer.analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo("Leader election cannot start: property "
				+ "'leader.election.renew-deadline' (value: 20s) is invalid: must be shorter than the lease duration.");
		assertThat(analysis.getAction())
			.isEqualTo("Update 'leader.election.renew-deadline' in your configuration: it must be shorter than the "
					+ "lease duration.");
		assertThat(analysis.getCause()).isSameAs(failure);
	}

	@Test
	void findsTheCauseBehindBeanCreationFailures() {
		InvalidLeaderElectionPropertyException failure = new InvalidLeaderElectionPropertyException(
				"leader.election.lease-name", "My_Lease", "must be a DNS-1123 subdomain");
		BeanCreationException settings = new BeanCreationException("leaderElectionSettings", "failed", failure);
		UnsatisfiedDependencyException elector = new UnsatisfiedDependencyException(null, "leaderElector",
				"settings", settings);
		FailureAnalysis analysis = this.analyzer.analyze(elector);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("'leader.election.lease-name'").contains("My_Lease");
		assertThat(analysis.getAction()).startsWith("Update 'leader.election.lease-name'");
		assertThat(analysis.getCause()).isSameAs(failure);
	}

	@Test
	void describesAMissingValue() {
		FailureAnalysis analysis = this.analyzer.analyze(new InvalidLeaderElectionPropertyException(
				"leader.election.lease-duration", null, "must be a positive duration"));
		assertThat(analysis.getDescription()).contains("'leader.election.lease-duration' (value: null)");
	}

	@Test
	void leavesOtherFailuresToOtherAnalyzers() {
		assertThat(this.analyzer.analyze(new BeanCreationException("leaderElector", "failed",
				new IllegalArgumentException("leader.election.lease-name")))).isNull();
	}

}
