package io.leaderelection.benchmarks;

import java.util.HashMap;
import java.util.Map;

/**
 * A harness's arguments: {@code quick}, and {@code key=value} pairs, separated by white space in
 * one argument or given as several.
 *
 * @param quick whether a short trial was asked for
 * @param values the values by key
 */
record HarnessArguments(boolean quick, Map<String, String> values) {

	/**
	 * @param keys the keys the harness takes, named in the message about an unknown argument
	 * @throws IllegalArgumentException for an argument that is neither {@code quick} nor a pair
	 */
	static HarnessArguments parse(String[] args, String keys) {
		Map<String, String> values = new HashMap<>();
		boolean quick = false;
		for (String arg : args) {
			for (String token : arg.trim().split("\\s+")) {
				if (token.isEmpty()) {
					continue;
				}
				if (token.equals("quick")) {
					quick = true;
				}
				else if (token.contains("=")) {
					values.put(token.substring(0, token.indexOf('=')), token.substring(token.indexOf('=') + 1));
				}
				else {
					throw new IllegalArgumentException(
							"unknown argument " + token + " (expected quick or key=value with key one of " + keys + ")");
				}
			}
		}
		return new HarnessArguments(quick, values);
	}

}
