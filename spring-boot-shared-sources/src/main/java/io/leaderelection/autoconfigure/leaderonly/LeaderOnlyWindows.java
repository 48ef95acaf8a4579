package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.StringValueResolver;

/**
 * The windows of {@code @LeaderOnly(atMostEvery)} methods: each value of the attribute resolved
 * once, its placeholders first, then read as a duration.
 */
class LeaderOnlyWindows {

	private final Map<String, Duration> windows = new ConcurrentHashMap<>();

	private volatile StringValueResolver placeholders = (value) -> value;

	void setPlaceholders(StringValueResolver placeholders) {
		this.placeholders = placeholders;
	}

	/**
	 * The window an {@code atMostEvery} value stands for.
	 * @throws IllegalArgumentException saying why, when a placeholder does not resolve, or the
	 * value is no duration or not a positive one
	 */
	Duration resolve(String atMostEvery) {
		return this.windows.computeIfAbsent(atMostEvery, this::parse);
	}

	private Duration parse(String atMostEvery) {
		String resolved = Objects.toString(this.placeholders.resolveStringValue(atMostEvery), "");
		String shown = resolved.equals(atMostEvery) ? "'" + atMostEvery + "'"
				: "'" + resolved + "' (from '" + atMostEvery + "')";
		Duration window;
		try {
			window = DurationStyle.detectAndParse(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(shown + " is not a duration such as 1m, PT1M or 60000 (milliseconds)",
					ex);
		}
		if (window.isNegative() || window.isZero()) {
			throw new IllegalArgumentException(shown + " is not a positive duration");
		}
		return window;
	}

}
