package io.leaderelection.autoconfigure.routing;

import java.util.Map;

import io.leaderelection.autoconfigure.LeaderElectionProperties;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Matches when some election is routed: {@code routing.service} has text or
 * {@code routing.pod-label} is true, at the top level or in {@code elections.NAME.routing}.
 */
class OnLeaderRoutingCondition extends SpringBootCondition {

	private static final String TOP = LeaderElectionProperties.PREFIX + ".routing";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Binder binder = Binder.get(context.getEnvironment());
		if (routes(binder, TOP)) {
			return ConditionOutcome.match(TOP + ".service or " + TOP + ".pod-label is set");
		}
		Map<String, Object> elections = binder
			.bind(LeaderElectionProperties.PREFIX + ".elections", Bindable.mapOf(String.class, Object.class))
			.orElse(Map.of());
		for (String election : elections.keySet()) {
			String prefix = LeaderElectionProperties.PREFIX + ".elections." + election + ".routing";
			if (routes(binder, prefix)) {
				return ConditionOutcome.match(prefix + ".service or " + prefix + ".pod-label is set");
			}
		}
		return ConditionOutcome.noMatch("no routing.service and no routing.pod-label=true in " + TOP
				+ " or any election's routing");
	}

	private static boolean routes(Binder binder, String prefix) {
		return StringUtils.hasText(binder.bind(prefix + ".service", String.class).orElse(null))
				|| binder.bind(prefix + ".pod-label", Boolean.class).orElse(false);
	}

}
