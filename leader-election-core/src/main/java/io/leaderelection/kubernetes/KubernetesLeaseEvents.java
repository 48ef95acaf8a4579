package io.leaderelection.kubernetes;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.RevocationCause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes Event on an election's Lease when this replica becomes leader, steps
 * down or stops leading, as client-go's leader election does: reason {@code LeaderElection},
 * message {@code "<identity> became leader"}, shown by {@code kubectl describe lease} and
 * {@code kubectl get events}. Each Event is written on the given executor, never on the thread
 * that renews or the listener lane. An Event that cannot be written is logged once, until one can
 * be again, and told by {@link #problem()}; the election goes on either way.
 */
public final class KubernetesLeaseEvents implements ElectionListener {

	/** The reason client-go gives its leader election Events. */
	public static final String REASON = "LeaderElection";

	private static final Logger logger = LoggerFactory.getLogger(KubernetesLeaseEvents.class);

	private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ISO_INSTANT;

	private final KubernetesClient client;

	private final String identity;

	private final Map<String, ElectionSettings> elections = new LinkedHashMap<>();

	private final Executor executor;

	private final AtomicReference<String> problem = new AtomicReference<>();

	/**
	 * @param client the client that writes the Events
	 * @param identity this replica's identity, named in every message and as the Events' source
	 * @param elections the elections whose Leases the Events are about
	 * @param executor where the Events are written: the calls block
	 */
	public KubernetesLeaseEvents(KubernetesClient client, String identity, Iterable<ElectionSettings> elections,
			Executor executor) {
		this.client = client;
		this.identity = identity;
		elections.forEach((election) -> this.elections.put(election.name(), election));
		this.executor = executor;
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		record(election, this.identity + " became leader");
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		record(election, (cause == RevocationCause.STEPPED_DOWN) ? this.identity + " stepped down"
				: this.identity + " stopped leading: " + cause);
	}

	/** Why the last Event could not be written, {@code null} once one was. */
	public String problem() {
		return this.problem.get();
	}

	private void record(String election, String message) {
		ElectionSettings lease = this.elections.get(election);
		if (lease != null) {
			try {
				this.executor.execute(() -> write(lease, message));
			}
			catch (RejectedExecutionException ex) {
				// the elector's threads are closed: the application is shutting down
			}
		}
	}

	private void write(ElectionSettings lease, String message) {
		try {
			String now = TIMESTAMP.format(Instant.now().atOffset(ZoneOffset.UTC));
			Lease current = this.client.leases().inNamespace(lease.namespace()).withName(lease.leaseName()).get();
			Event event = new EventBuilder().withNewMetadata()
				.withGenerateName(lease.leaseName() + ".")
				.withNamespace(lease.namespace())
				.endMetadata()
				.withNewInvolvedObject()
				.withApiVersion("coordination.k8s.io/v1")
				.withKind("Lease")
				.withNamespace(lease.namespace())
				.withName(lease.leaseName())
				// kubectl describe finds an object's Events by its uid as well
				.withUid((current != null) ? current.getMetadata().getUid() : null)
				.endInvolvedObject()
				.withReason(REASON)
				.withMessage(message)
				.withType("Normal")
				.withNewSource()
				.withComponent(this.identity)
				.endSource()
				.withFirstTimestamp(now)
				.withLastTimestamp(now)
				.withCount(1)
				.build();
			this.client.v1().events().inNamespace(lease.namespace()).resource(event).create();
			this.problem.set(null);
		}
		catch (KubernetesClientException ex) {
			String why = "Cannot record Kubernetes Events on Lease " + lease.namespace() + "/" + lease.leaseName()
					+ ": " + ((ex.getCode() > 0) ? ex.getCode() + " " : "") + ex.getMessage()
					+ ((ex.getCause() != null) ? " (" + ex.getCause() + ")" : "")
					+ ((ex.getCode() == 403) ? "; grant 'create' on 'events' in namespace '" + lease.namespace()
							+ "', or set leader.election.events.enabled=false" : "")
					+ "; leader election goes on without Events";
			if (this.problem.getAndSet(why) == null) {
				logger.warn(why);
			}
		}
	}

}
