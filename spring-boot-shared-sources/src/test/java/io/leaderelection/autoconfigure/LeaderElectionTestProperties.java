package io.leaderelection.autoconfigure;

/** Properties the tests of the auto-configuration share. */
public final class LeaderElectionTestProperties {

	/**
	 * Campaigns as the lifecycle starts: a context started by an {@code ApplicationContextRunner}
	 * (or from AOT-generated code) has no {@code SpringApplication} to publish its readiness.
	 */
	public static final String CAMPAIGN_AT_START = "leader.election.campaign-when-ready=false";

	private LeaderElectionTestProperties() {
	}

}
