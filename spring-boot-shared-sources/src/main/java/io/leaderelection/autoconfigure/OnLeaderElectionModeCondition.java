package io.leaderelection.autoconfigure;

import io.leaderelection.autoconfigure.LeaderElectionProperties.Mode;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when leader election runs standalone, or when it runs on Kubernetes (lease or for-life),
 * {@code leader.election.enabled=false} counting as standalone.
 */
abstract class OnLeaderElectionModeCondition extends SpringBootCondition {

	private final boolean standalone;

	OnLeaderElectionModeCondition(boolean standalone) {
		this.standalone = standalone;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		// the two properties only: binding them all would report a bad timing here, not where it is checked
		Binder binder = Binder.get(context.getEnvironment());
		LeaderElectionProperties properties = new LeaderElectionProperties();
		binder.bind(LeaderElectionProperties.PREFIX + ".enabled", Boolean.class).ifBound(properties::setEnabled);
		binder.bind(LeaderElectionProperties.PREFIX + ".mode", Mode.class).ifBound(properties::setMode);
		Mode effective = properties.effectiveMode();
		String message = "leader election runs in mode " + effective;
		return ((effective == Mode.STANDALONE) == this.standalone) ? ConditionOutcome.match(message)
				: ConditionOutcome.noMatch(message);
	}

	/** Campaigns on Kubernetes: in lease or for-life mode. */
	static final class Kubernetes extends OnLeaderElectionModeCondition {

		Kubernetes() {
			super(false);
		}

	}

	static final class Standalone extends OnLeaderElectionModeCondition {

		Standalone() {
			super(true);
		}

	}

}
