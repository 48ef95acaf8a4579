package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.engine.LeaseConflictException;
import io.leaderelection.engine.LeaseStoreException;

/**
 * The EndpointSlice of a Service without selector that names the leader of one election, and
 * nothing else: one address while a term holds it, none once withdrawn. Several replicas write
 * it, so every write is a compare-and-swap on two counts: it replaces the version read, at its
 * resourceVersion, and only a version whose fencing token (an annotation) is lower than the
 * writer's, or is the writer's own. A deposed leader's write therefore either finds the newer
 * term's token and writes nothing, or, having read before that term wrote, gets a 409 and reads
 * again: the slice always ends naming the highest term, and never two replicas. A withdrawal
 * empties the slice unless a newer term wrote it, and leaves the withdrawing term's token on it,
 * so that no older term's late write can fill it again; it writes that token even where the slice
 * does not name this replica, since a write of the term that got no answer may still land, and
 * must then meet a newer version than the one it was based on.
 * <p>
 * Labels, annotations and owner references others put on the slice are written as they were read.
 */
final class LeaderEndpointSlice {

	/** The value of {@value #MANAGED_BY_LABEL} on the slices this library writes. */
	static final String MANAGED_BY = "leaderelection.io";

	/** Kubernetes' label naming the controller or tool that manages an EndpointSlice. */
	static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";

	/** Kubernetes' label tying an EndpointSlice to its Service. */
	static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

	/** The fencing token of the term that wrote the slice last. */
	static final String FENCING_TOKEN = "leaderelection.io/fencing-token";

	/** The identity of the leader that wrote the slice last. */
	static final String HOLDER = "leaderelection.io/holder";

	/**
	 * How many times one write reads again after losing a race: each conflict means another
	 * writer wrote in between, which a handful of replicas cannot do much more often.
	 */
	private static final int MAX_CONFLICTS = 5;

	private final ApiCalls calls;

	private final KubernetesSerialization serialization;

	private final String namespace;

	private final String name;

	private final String holder;

	private final LeaderRoute.Endpoint endpoint;

	private final String collectionUri;

	private final String objectUri;

	private final String description;

	/** The version this process wrote last, for a withdrawal to replace without reading first. */
	private volatile EndpointSlice written;

	LeaderEndpointSlice(ApiCalls calls, String namespace, String holder, LeaderRoute.Endpoint endpoint) {
		this.calls = calls;
		this.serialization = calls.serialization();
		this.namespace = namespace;
		this.name = endpoint.service();
		this.holder = holder;
		this.endpoint = endpoint;
		this.collectionUri = calls.serverUri() + "apis/discovery.k8s.io/v1/namespaces/"
				+ KubernetesLeaseStore.encode(namespace) + "/endpointslices";
		this.objectUri = this.collectionUri + "/" + KubernetesLeaseStore.encode(this.name);
		this.description = "EndpointSlice " + namespace + "/" + this.name;
	}

	String describe() {
		return this.description;
	}

	/**
	 * Makes the slice name this replica alone under the given term, unless a newer term wrote it.
	 * @return whether the slice names this replica under that term now
	 */
	CompletableFuture<Boolean> name(long fencingToken, Duration timeout) {
		return name(fencingToken, System.nanoTime() + timeout.toNanos(), 0);
	}

	private CompletableFuture<Boolean> name(long fencingToken, long deadline, int conflicts) {
		return read(deadline).thenCompose((current) -> {
			if (current != null) {
				requireOurs(current);
				Long token = tokenOf(current);
				if (token != null && token > fencingToken) {
					return CompletableFuture.completedFuture(false);
				}
				if (token != null && token == fencingToken) {
					if (!this.holder.equals(holderOf(current))) {
						// a term has one holder: the token belongs to another process
						return CompletableFuture.completedFuture(false);
					}
					if (namesOnlyUs(current)) {
						this.written = current;
						return CompletableFuture.completedFuture(true);
					}
				}
			}
			EndpointSlice wanted = (current != null) ? this.serialization.clone(current) : newSlice();
			stamp(wanted, fencingToken, List.of(ourEndpoint()));
			return write(wanted, current == null, deadline).handle((stored, failure) -> {
				if (failure == null) {
					this.written = stored;
					return CompletableFuture.completedFuture(true);
				}
				return retryOnConflict(failure, conflicts, () -> name(fencingToken, deadline, conflicts + 1));
			}).thenCompose((next) -> next);
		});
	}

	/**
	 * Empties the slice under the given term's token, unless a newer term wrote it (or it is
	 * already empty under that token): called only once the term may have written the slice.
	 * @return whether the slice was written by this call
	 */
	CompletableFuture<Boolean> withdraw(long fencingToken, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		EndpointSlice last = this.written;
		CompletableFuture<EndpointSlice> current = (last != null) ? CompletableFuture.completedFuture(last)
				: read(deadline);
		return current.thenCompose((slice) -> withdraw(slice, fencingToken, deadline, 0));
	}

	private CompletableFuture<Boolean> withdraw(EndpointSlice current, long fencingToken, long deadline,
			int conflicts) {
		if (current != null && !withdrawable(current, fencingToken)) {
			return CompletableFuture.completedFuture(false);
		}
		EndpointSlice emptied = (current != null) ? this.serialization.clone(current) : newSlice();
		stamp(emptied, fencingToken, List.of());
		return write(emptied, current == null, deadline).handle((stored, failure) -> {
			if (failure == null) {
				this.written = null;
				return CompletableFuture.completedFuture(true);
			}
			return retryOnConflict(failure, conflicts,
					() -> read(deadline).thenCompose((slice) -> withdraw(slice, fencingToken, deadline, conflicts + 1)));
		}).thenCompose((next) -> next);
	}

	/**
	 * Whether a withdrawal under the given term writes the slice: it is ours, no newer term (nor
	 * another holder of this one) wrote it, and it is not already empty under this term.
	 */
	private boolean withdrawable(EndpointSlice slice, long fencingToken) {
		if (!managedByUs(slice)) {
			return false;
		}
		Long token = tokenOf(slice);
		if (token == null || token < fencingToken) {
			return true;
		}
		return token == fencingToken && this.holder.equals(holderOf(slice)) && slice.getEndpoints() != null
				&& !slice.getEndpoints().isEmpty();
	}

	/** Reads the slice again and retries after a lost race; fails with anything else. */
	private CompletableFuture<Boolean> retryOnConflict(Throwable failure, int conflicts,
			Supplier<CompletableFuture<Boolean>> retry) {
		Throwable cause = LeaderRoute.unwrap(failure);
		this.written = null;
		if (cause instanceof LeaseConflictException && conflicts < MAX_CONFLICTS) {
			return retry.get();
		}
		return CompletableFuture.failedFuture(cause);
	}

	private CompletableFuture<EndpointSlice> read(long deadline) {
		return this.calls.read(this.objectUri, this.description, EndpointSlice.class, remaining(deadline));
	}

	private CompletableFuture<EndpointSlice> write(EndpointSlice slice, boolean create, long deadline) {
		Duration timeout = remaining(deadline);
		String body = this.serialization.asJson(slice);
		HttpRequest request = create ? this.calls.request(this.collectionUri, timeout).post(ApiCalls.JSON, body).build()
				: this.calls.request(this.objectUri, timeout).put(ApiCalls.JSON, body).build();
		String verb = create ? "create" : "update";
		return this.calls.send(verb, request, timeout, this.description)
			.thenApply((response) -> stored(verb, response));
	}

	private EndpointSlice stored(String verb, HttpResponse<String> response) {
		int code = response.code();
		if (code == 200 || code == 201) {
			return this.serialization.unmarshal(response.body(), EndpointSlice.class);
		}
		String detail = code + " " + this.calls.reason(response);
		if (code == 409 || code == 404) {
			// created, written or deleted by another writer since it was read
			throw new LeaseConflictException(verb, this.description, detail);
		}
		if (code == 403) {
			throw new LeaseStoreException(verb, this.description, code, detail + "; grant 'get', 'create' and "
					+ "'update' on 'endpointslices' (API group discovery.k8s.io) in namespace '" + this.namespace + "'");
		}
		throw new LeaseStoreException(verb, this.description, code, detail);
	}

	/** A slice of the same name written by something else is not ours to take over. */
	private void requireOurs(EndpointSlice slice) {
		if (!managedByUs(slice)) {
			Map<String, String> labels = slice.getMetadata().getLabels();
			String managedBy = (labels != null) ? labels.get(MANAGED_BY_LABEL) : null;
			throw new LeaseStoreException("update", this.description, 0, "it is managed by "
					+ ((managedBy != null) ? "'" + managedBy + "'" : "no one (no label " + MANAGED_BY_LABEL + ")")
					+ ", not by " + MANAGED_BY + ": the leader-only Service must have no selector and its "
					+ "EndpointSlice of this name is written by the leader only; delete it to let the leader write it");
		}
	}

	private static boolean managedByUs(EndpointSlice slice) {
		Map<String, String> labels = slice.getMetadata().getLabels();
		return labels != null && MANAGED_BY.equals(labels.get(MANAGED_BY_LABEL));
	}

	private boolean namesOnlyUs(EndpointSlice slice) {
		EndpointSlice wanted = this.serialization.clone(slice);
		stamp(wanted, tokenOf(slice), List.of(ourEndpoint()));
		return Objects.equals(wanted.getEndpoints(), slice.getEndpoints())
				&& Objects.equals(wanted.getPorts(), slice.getPorts())
				&& Objects.equals(wanted.getMetadata().getLabels(), slice.getMetadata().getLabels());
	}

	private EndpointSlice newSlice() {
		EndpointSlice slice = new EndpointSlice();
		slice.setMetadata(new ObjectMeta());
		slice.getMetadata().setName(this.name);
		slice.getMetadata().setNamespace(this.namespace);
		slice.setAddressType(this.endpoint.addressType());
		if (this.endpoint.serviceUid() != null) {
			// deleted with its Service by the garbage collector; no blockOwnerDeletion, which
			// would need the right to set finalizers on Services
			slice.getMetadata()
				.setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("v1")
					.withKind("Service")
					.withName(this.name)
					.withUid(this.endpoint.serviceUid())
					.build()));
		}
		return slice;
	}

	/** Writes our labels, the term's annotations, the endpoints and the ports into the slice. */
	private void stamp(EndpointSlice slice, long fencingToken, List<Endpoint> endpoints) {
		slice.setApiVersion("discovery.k8s.io/v1");
		slice.setKind("EndpointSlice");
		ObjectMeta metadata = slice.getMetadata();
		Map<String, String> labels = new LinkedHashMap<>((metadata.getLabels() != null) ? metadata.getLabels() : Map.of());
		labels.put(SERVICE_NAME_LABEL, this.name);
		labels.put(MANAGED_BY_LABEL, MANAGED_BY);
		metadata.setLabels(labels);
		Map<String, String> annotations = new LinkedHashMap<>(
				(metadata.getAnnotations() != null) ? metadata.getAnnotations() : Map.of());
		annotations.put(FENCING_TOKEN, Long.toString(fencingToken));
		annotations.put(HOLDER, this.holder);
		metadata.setAnnotations(annotations);
		slice.setEndpoints(new ArrayList<>(endpoints));
		List<EndpointPort> ports = new ArrayList<>();
		this.endpoint.ports()
			.forEach((portName, port) -> ports.add(
					new EndpointPortBuilder().withName(portName).withPort(port).withProtocol("TCP").build()));
		slice.setPorts(ports);
	}

	private Endpoint ourEndpoint() {
		EndpointBuilder builder = new EndpointBuilder().withAddresses(this.endpoint.address())
			.withNewConditions()
			.withReady(true)
			.withServing(true)
			.withTerminating(false)
			.endConditions();
		if (this.endpoint.podName() != null) {
			builder.withTargetRef(new ObjectReferenceBuilder().withKind("Pod")
				.withNamespace(this.namespace)
				.withName(this.endpoint.podName())
				.build());
		}
		return builder.build();
	}

	/** The fencing token the slice was written under; {@code null} when it carries none that parses. */
	static Long tokenOf(EndpointSlice slice) {
		Map<String, String> annotations = slice.getMetadata().getAnnotations();
		String token = (annotations != null) ? annotations.get(FENCING_TOKEN) : null;
		if (token == null) {
			return null;
		}
		try {
			return Long.parseLong(token.trim());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static String holderOf(EndpointSlice slice) {
		Map<String, String> annotations = slice.getMetadata().getAnnotations();
		return (annotations != null) ? annotations.get(HOLDER) : null;
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
	}

}
