package io.leaderelection.kubernetes;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.WindowRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The once-per-window jobs a Lease records, as the JSON of its annotation
 * {@value LeaseRecord#WINDOWS_ANNOTATION}: an object with one member per job, e.g.
 * <pre>{"nightly-report": {"closedForMillis": 59012, "startedMillisAgo": 988, "endedMillisAgo": null,
 * "startedBy": "orders-7d9f_x2k1", "fencingToken": 48213, "startedAt": "2026-11-25T12:00:00.123Z"}}</pre>
 */
final class WindowsAnnotation {

	private static final Logger logger = LoggerFactory.getLogger(WindowsAnnotation.class);

	private final KubernetesSerialization serialization;

	private final String lease;

	WindowsAnnotation(KubernetesSerialization serialization, String lease) {
		this.serialization = serialization;
		this.lease = lease;
	}

	/**
	 * The jobs recorded in the metadata's annotation. An annotation that cannot be read (written
	 * by hand) records none, which is logged: a job may then run again within its window.
	 */
	Map<String, WindowRecord> read(ObjectMeta metadata) {
		String json = (metadata.getAnnotations() != null) ? metadata.getAnnotations().get(LeaseRecord.WINDOWS_ANNOTATION)
				: null;
		if (json == null || json.isBlank()) {
			return Map.of();
		}
		try {
			Map<String, WindowRecord> windows = new LinkedHashMap<>();
			Map<?, ?> jobs = this.serialization.unmarshal(json, Map.class);
			jobs.forEach((job, fields) -> windows.put(String.valueOf(job), window((Map<?, ?>) fields)));
			return windows;
		}
		catch (RuntimeException ex) {
			logger.warn("The annotation {} of {} is no record of once-per-window jobs, and is ignored: {}",
					LeaseRecord.WINDOWS_ANNOTATION, this.lease, ex.toString());
			return Map.of();
		}
	}

	/** Writes the jobs into the metadata's annotation, or removes it when there are none. */
	void write(Map<String, WindowRecord> windows, ObjectMeta metadata) {
		if (windows.isEmpty()) {
			if (metadata.getAnnotations() != null) {
				metadata.getAnnotations().remove(LeaseRecord.WINDOWS_ANNOTATION);
			}
			return;
		}
		Map<String, Map<String, Object>> jobs = new LinkedHashMap<>();
		windows.forEach((job, window) -> {
			Map<String, Object> fields = new LinkedHashMap<>();
			fields.put("closedForMillis", window.closedForMillis());
			fields.put("startedMillisAgo", window.startedMillisAgo());
			fields.put("endedMillisAgo", window.endedMillisAgo());
			fields.put("startedBy", window.startedBy());
			fields.put("fencingToken", window.fencingToken());
			fields.put("startedAt", (window.startedAt() != null) ? window.startedAt().toString() : null);
			jobs.put(job, fields);
		});
		Map<String, String> annotations = (metadata.getAnnotations() != null)
				? new LinkedHashMap<>(metadata.getAnnotations()) : new LinkedHashMap<>();
		annotations.put(LeaseRecord.WINDOWS_ANNOTATION, this.serialization.asJson(jobs));
		metadata.setAnnotations(annotations);
	}

	private static WindowRecord window(Map<?, ?> fields) {
		Object ended = fields.get("endedMillisAgo");
		Object startedAt = fields.get("startedAt");
		return new WindowRecord(number(fields, "closedForMillis"), number(fields, "startedMillisAgo"),
				(ended != null) ? ((Number) ended).longValue() : null, (String) fields.get("startedBy"),
				number(fields, "fencingToken"), instant(startedAt));
	}

	private static long number(Map<?, ?> fields, String name) {
		Object value = fields.get(name);
		if (!(value instanceof Number number)) {
			throw new IllegalArgumentException("'" + name + "' is " + value + ", not a number");
		}
		return number.longValue();
	}

	private static Instant instant(Object value) {
		try {
			return (value != null) ? Instant.parse(value.toString()) : null;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

}
