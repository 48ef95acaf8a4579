package io.leaderelection.autoconfigure.shedlock;

import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.store.LeaseRecord;

/**
 * The once-per-window jobs a Lease records, read from the API server as stored: the backing store
 * of the locks, which ShedLock's tests inspect directly. Each record counts from the write that
 * stored it, whose renewTime, on the writer's wall clock, tells when that was.
 */
final class LeaseWindows {

	private static final ObjectMapper JSON = new ObjectMapper();

	private final CrudKubernetesServer server;

	private final String namespace;

	private final String leaseName;

	LeaseWindows(CrudKubernetesServer server, String namespace, String leaseName) {
		this.server = server;
		this.namespace = namespace;
		this.leaseName = leaseName;
	}

	/**
	 * Whether the Lease, as stored, holds the job's window closed now: its record says it is
	 * closed for longer than has passed since the write that stored it.
	 */
	boolean closed(String job) {
		Lease lease = lease();
		JsonNode record = records(lease).get(job);
		if (record == null) {
			return false;
		}
		Instant writtenAt = lease.getSpec().getRenewTime().toInstant();
		return writtenAt.plusMillis(record.get("closedForMillis").asLong()).isAfter(Instant.now());
	}

	/** The job's record as stored; {@code null} when the Lease records none. */
	JsonNode record(String job) {
		return records(lease()).get(job);
	}

	String holder() {
		return lease().getSpec().getHolderIdentity();
	}

	Lease lease() {
		return this.server.lease(this.namespace, this.leaseName);
	}

	private static JsonNode records(Lease lease) {
		Map<String, String> annotations = lease.getMetadata().getAnnotations();
		String json = (annotations != null) ? annotations.get(LeaseRecord.WINDOWS_ANNOTATION) : null;
		try {
			return (json != null) ? JSON.readTree(json) : JSON.createObjectNode();
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException("Not JSON: " + json, ex);
		}
	}

}
