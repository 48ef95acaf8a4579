package io.leaderelection.actuate.health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a leader election health check found, in plain types, so that both Spring Boot lines
 * share the rules and differ only in the health types they hand it to.
 *
 * @param up whether the check passed
 * @param details the details to show, {@code reason} first when it failed
 */
public record HealthVerdict(boolean up, Map<String, Object> details) {

	/** UP with {@code details} when there are no problems, else DOWN giving them as the reason. */
	static HealthVerdict of(List<String> problems, Map<String, Object> details) {
		Map<String, Object> all = new LinkedHashMap<>();
		if (!problems.isEmpty()) {
			all.put("reason", String.join("; ", problems));
		}
		all.putAll(details);
		return new HealthVerdict(problems.isEmpty(), all);
	}

}
