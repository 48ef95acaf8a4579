package io.leaderelection.kubernetes;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes Event on an election's Lease when this replica becomes leader, steps
 * down or stops leading, as client-go's leader election does: reason {@code LeaderElection},
 * message {@code "<identity> became leader"}, shown by {@code kubectl describe lease} and
 * {@code kubectl get events}.
 * <p>
 * Each Event is written on the given executor, never on the thread that renews or a listener
 * lane, through a client of its own (with the application's client settings, see
 * {@link ElectorClient}) without retries and with a short timeout, so that a failing API server
 * holds that executor for seconds, not minutes. A kind of failure is logged once, until
 * a write succeeds again, and told by {@link #problem()}; the election goes on either way.
 */
public final class KubernetesLeaseEvents implements ElectionListener, AutoCloseable {

	/** The reason client-go gives its leader election Events. */
	public static final String REASON = "LeaderElection";

	/** How long one call may take: an Event is worth less than the calls it could hold up. */
	private static final int TIMEOUT_MILLIS = 5_000;

	private static final Logger logger = LoggerFactory.getLogger(KubernetesLeaseEvents.class);

	private final KubernetesClient configuredClient;

	/** Built at the first Event: an application that never leads builds none. */
	private KubernetesClient client;

	private final String identity;

	private final Map<String, ElectionSettings> elections = new LinkedHashMap<>();

	private final Executor executor;

	private final AtomicReference<String> problem = new AtomicReference<>();

	/** The status code of the failure logged last; -1 while none is. */
	private final AtomicInteger loggedCode = new AtomicInteger(-1);

	private volatile boolean closed;

	/**
	 * @param client the client whose configuration and HTTP client settings the Events are written
	 * with
	 * @param identity this replica's identity, named in every message and as the Events' source
	 * @param elections the elections whose Leases the Events are about
	 * @param executor where the Events are written: the calls block
	 */
	public KubernetesLeaseEvents(KubernetesClient client, String identity, Iterable<ElectionSettings> elections,
			Executor executor) {
		this.configuredClient = client;
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

	/** Stops writing: Events still on their way are dropped without a word. */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.client != null) {
			this.client.close();
		}
	}

	private synchronized KubernetesClient client() {
		if (this.client == null && !this.closed) {
			this.client = ElectorClient.of(this.configuredClient,
					new ConfigBuilder(this.configuredClient.getConfiguration()).withRequestRetryBackoffLimit(0)
						.withRequestTimeout(TIMEOUT_MILLIS)
						.withConnectionTimeout(TIMEOUT_MILLIS)
						.build());
		}
		return this.client;
	}

	private void record(String election, String message) {
		ElectionSettings lease = this.elections.get(election);
		if (lease == null || this.closed) {
			return;
		}
		// when it happened, to the second as Event timestamps are kept, however late it is written
		String at = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
		try {
			this.executor.execute(() -> write(lease, message, at));
		}
		catch (RejectedExecutionException ex) {
			// the elector's threads are closed: the application is shutting down
		}
	}

	private void write(ElectionSettings lease, String message, String at) {
		try {
			KubernetesClient client = client();
			if (client == null) {
				return;
			}
			Lease current = client.leases().inNamespace(lease.namespace()).withName(lease.leaseName()).get();
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
				.withFirstTimestamp(at)
				.withLastTimestamp(at)
				.withCount(1)
				.build();
			client.v1().events().inNamespace(lease.namespace()).resource(event).create();
			this.problem.set(null);
			this.loggedCode.set(-1);
		}
		catch (RuntimeException ex) {
			if (!this.closed && !Thread.currentThread().isInterrupted()) {
				failed(lease, ex);
			}
		}
	}

	private void failed(ElectionSettings lease, RuntimeException ex) {
		int code = (ex instanceof KubernetesClientException clientException)
				? Math.max(0, clientException.getCode()) : 0;
		String why = "Cannot record Kubernetes Events on Lease " + lease.namespace() + "/" + lease.leaseName() + ": "
				+ ((code > 0) ? code + " " : "") + ex.getMessage()
				+ ((ex.getCause() != null) ? " (" + ex.getCause() + ")" : "")
				+ ((code == 403) ? "; grant 'create' on 'events' in namespace '" + lease.namespace()
						+ "', or set leader.election.events.enabled=false" : "")
				+ "; leader election goes on without Events";
		this.problem.set(why);
		// once per kind: a missing permission is told even after a timeout was
		if (this.loggedCode.getAndSet(code) != code) {
			logger.warn(why);
		}
	}

}
