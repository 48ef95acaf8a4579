package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseStoreException;

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
 * The slice is owned by its Service, so that it goes when the Service does. The owner is the
 * Service as it is when the slice is written, read with the slice: a Service deleted and created
 * again is another owner (another uid), and the garbage collector deletes a slice naming the
 * former one. The leader therefore {@link #keep keeps} the slice: it looks at both every retry
 * period, and writes the slice again when it is gone or names a former Service.
 * <p>
 * Labels, annotations and other owner references others put on the slice are written as they were
 * read.
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

	/**
	 * A read the API server answers from its watch cache, without a round trip to etcd: what
	 * {@link #keep} looks with every retry period. It may lag a little; a write never relies on it.
	 */
	private static final String FROM_CACHE = "?resourceVersion=0";

	private final ApiCalls calls;

	private final KubernetesSerialization serialization;

	private final String namespace;

	private final String name;

	private final String holder;

	private final LeaderRoute.Endpoint endpoint;

	private final String collectionUri;

	private final String objectUri;

	private final String serviceUri;

	private final String description;

	private final String serviceDescription;

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
		this.serviceUri = calls.coreObjectUri(namespace, "services", this.name);
		this.description = "EndpointSlice " + namespace + "/" + this.name;
		this.serviceDescription = "Service " + namespace + "/" + this.name;
	}

	String describe() {
		return this.description;
	}

	/**
	 * Makes the slice name this replica alone under the given term, owned by the Service as it is
	 * now, unless a newer term wrote it. Fails when the Service does not exist.
	 */
	CompletableFuture<Naming> name(long fencingToken, Duration timeout) {
		return name(fencingToken, System.nanoTime() + timeout.toNanos(), 0);
	}

	/**
	 * Keeps the slice as {@link #name} left it: looks at the slice and its Service as the API
	 * server's cache has them, and names this replica again, reading both anew, when the slice
	 * is gone, was changed, or is owned by a Service of its name that was deleted since.
	 */
	CompletableFuture<Naming> keep(long fencingToken, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		return read(deadline, true)
			.thenCombine(owner(deadline, true), (current, owner) -> naming(current, owner, fencingToken))
			.thenCompose((naming) -> naming.written() ? name(fencingToken, deadline, 0)
					: CompletableFuture.completedFuture(naming));
	}

	private CompletableFuture<Naming> name(long fencingToken, long deadline, int conflicts) {
		return read(deadline, false).thenCombine(owner(deadline, false), (current, owner) -> {
			Naming naming = naming(current, owner, fencingToken);
			if (!naming.written()) {
				if (naming.names()) {
					this.written = current;
				}
				return CompletableFuture.completedFuture(naming);
			}
			EndpointSlice wanted = (current != null) ? this.serialization.clone(current) : newSlice();
			stamp(wanted, fencingToken, List.of(ourEndpoint()), owner);
			return write(wanted, current == null, deadline).handle((stored, failure) -> {
				if (failure == null) {
					this.written = stored;
					return CompletableFuture.completedFuture(naming);
				}
				return retryOnConflict(failure, conflicts, () -> name(fencingToken, deadline, conflicts + 1));
			}).thenCompose((next) -> next);
		}).thenCompose((next) -> next);
	}

	/**
	 * What naming this replica under the given term takes, the slice and its Service being as
	 * read; a write that would need the Service fails when there is none.
	 */
	private Naming naming(EndpointSlice current, Owner owner, long fencingToken) {
		Naming naming = needs(current, owner, fencingToken);
		if (naming.written() && !owner.exists()) {
			throw new LeaseStoreException("get", this.serviceDescription, 404, "it does not exist: the "
					+ this.description + " routing to the leader is written, owned by it, once it exists again; "
					+ "create it without a selector, with the ports this replica serves");
		}
		return naming;
	}

	private Naming needs(EndpointSlice current, Owner owner, long fencingToken) {
		if (current == null) {
			return Naming.CREATED;
		}
		requireOurs(current);
		Long token = tokenOf(current);
		// a term has one holder: the same token written by another process is not ours either
		if (token != null
				&& (token > fencingToken || (token == fencingToken && !this.holder.equals(holderOf(current))))) {
			return Naming.LEFT_TO_A_NEWER_TERM;
		}
		if (token == null || token != fencingToken || !namesOnlyUs(current)) {
			return Naming.REPLACED;
		}
		return ownedBy(current, owner) ? Naming.UNCHANGED : Naming.REOWNED;
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
				: read(deadline, false);
		return current.thenCompose((slice) -> withdraw(slice, fencingToken, deadline, 0));
	}

	private CompletableFuture<Boolean> withdraw(EndpointSlice current, long fencingToken, long deadline,
			int conflicts) {
		if (current != null && !withdrawable(current, fencingToken)) {
			return CompletableFuture.completedFuture(false);
		}
		// an emptied slice keeps its owner; a slice to create (to fence the term's late writes) gets the Service's
		CompletableFuture<Owner> owner = (current != null) ? CompletableFuture.completedFuture(Owner.UNKNOWN)
				: owner(deadline, false);
		return owner.thenCompose((service) -> {
			if (!service.exists()) {
				// nothing routes without the Service, and a late create of the term's names a former
				// Service as owner, which the garbage collector deletes
				return CompletableFuture.completedFuture(false);
			}
			EndpointSlice emptied = (current != null) ? this.serialization.clone(current) : newSlice();
			stamp(emptied, fencingToken, List.of(), service);
			return write(emptied, current == null, deadline).handle((stored, failure) -> {
				if (failure == null) {
					this.written = null;
					return CompletableFuture.completedFuture(true);
				}
				return retryOnConflict(failure, conflicts, () -> read(deadline, false)
					.thenCompose((slice) -> withdraw(slice, fencingToken, deadline, conflicts + 1)));
			}).thenCompose((next) -> next);
		});
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
	private <T> CompletableFuture<T> retryOnConflict(Throwable failure, int conflicts,
			Supplier<CompletableFuture<T>> retry) {
		Throwable cause = LeaderRoute.unwrap(failure);
		this.written = null;
		if (cause instanceof LeaseConflictException && conflicts < MAX_CONFLICTS) {
			return retry.get();
		}
		return CompletableFuture.failedFuture(cause);
	}

	private CompletableFuture<EndpointSlice> read(long deadline, boolean fromCache) {
		return this.calls.read(this.objectUri + (fromCache ? FROM_CACHE : ""), this.description, EndpointSlice.class,
				remaining(deadline));
	}

	/** The Service as the owner of the slice; {@link Owner#UNKNOWN} when it may not be read. */
	private CompletableFuture<Owner> owner(long deadline, boolean fromCache) {
		return this.calls
			.read(this.serviceUri + (fromCache ? FROM_CACHE : ""), this.serviceDescription, Service.class,
					remaining(deadline))
			.handle((service, failure) -> {
				if (failure == null) {
					return (service != null) ? new Owner(true, service.getMetadata().getUid()) : Owner.MISSING;
				}
				Throwable cause = LeaderRoute.unwrap(failure);
				if (cause instanceof LeaseStoreException storeFailure && storeFailure.getStatusCode() == 403) {
					// without 'get' on Services the slice is written without owner, as the start warned
					return Owner.UNKNOWN;
				}
				throw (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
			});
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
					+ "'update' on 'endpointslices' (API group discovery.k8s.io) in namespace '" + this.namespace
					+ "', and on OpenShift also 'create' on 'endpointslices/restricted', without which its "
					+ "RestrictedEndpointsAdmission refuses a slice naming a Pod's address");
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
		stamp(wanted, tokenOf(slice), List.of(ourEndpoint()), Owner.UNKNOWN);
		return Objects.equals(wanted.getEndpoints(), slice.getEndpoints())
				&& Objects.equals(wanted.getPorts(), slice.getPorts())
				&& Objects.equals(wanted.getMetadata().getLabels(), slice.getMetadata().getLabels());
	}

	/** Whether the slice is owned by the Service as read (or the Service could not be read). */
	private boolean ownedBy(EndpointSlice slice, Owner owner) {
		return owner.exists() && Objects.equals(ownerReferences(slice, owner), ownerReferences(slice, Owner.UNKNOWN));
	}

	/**
	 * The slice's owner references with the one to its Service naming the Service as read, in its
	 * place, and the others as they are; all as they are when the Service could not be read.
	 */
	private List<OwnerReference> ownerReferences(EndpointSlice slice, Owner owner) {
		List<OwnerReference> current = (slice.getMetadata().getOwnerReferences() != null)
				? slice.getMetadata().getOwnerReferences() : List.of();
		if (owner.uid() == null) {
			return current;
		}
		List<OwnerReference> references = new ArrayList<>();
		boolean named = false;
		for (OwnerReference reference : current) {
			if (!isToOurService(reference)) {
				references.add(reference);
			}
			else if (!named) {
				references.add(owner.uid().equals(reference.getUid()) ? reference : serviceReference(owner.uid()));
				named = true;
			}
		}
		if (!named) {
			references.add(serviceReference(owner.uid()));
		}
		return references;
	}

	private boolean isToOurService(OwnerReference reference) {
		return "v1".equals(reference.getApiVersion()) && "Service".equals(reference.getKind())
				&& this.name.equals(reference.getName());
	}

	/**
	 * Deleted with its Service by the garbage collector; no blockOwnerDeletion, which would need
	 * the right to set finalizers on Services.
	 */
	private OwnerReference serviceReference(String uid) {
		return new OwnerReferenceBuilder().withApiVersion("v1")
			.withKind("Service")
			.withName(this.name)
			.withUid(uid)
			.build();
	}

	private EndpointSlice newSlice() {
		EndpointSlice slice = new EndpointSlice();
		slice.setMetadata(new ObjectMeta());
		slice.getMetadata().setName(this.name);
		slice.getMetadata().setNamespace(this.namespace);
		slice.setAddressType(this.endpoint.addressType());
		return slice;
	}

	/** Writes our labels, the term's annotations, the owner, the endpoints and the ports into the slice. */
	private void stamp(EndpointSlice slice, long fencingToken, List<Endpoint> endpoints, Owner owner) {
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
		List<OwnerReference> owners = ownerReferences(slice, owner);
		metadata.setOwnerReferences(owners.isEmpty() ? null : new ArrayList<>(owners));
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

	/** What {@link #name} or {@link #keep} found, and wrote. */
	enum Naming {

		/** The slice named this replica alone under the term, owned by its Service: nothing was written. */
		UNCHANGED(null),

		/** A newer term wrote the slice: nothing was written. */
		LEFT_TO_A_NEWER_TERM(null),

		/** The slice was created. */
		CREATED("it was missing"),

		/** The slice was replaced: it named another replica, term, port or nothing. */
		REPLACED("it did not name this replica alone under its term"),

		/** The slice was replaced only to be owned by the Service there is now. */
		REOWNED("it was owned by a Service of its name deleted since, or by none");

		private final String reason;

		Naming(String reason) {
			this.reason = reason;
		}

		/** Whether the slice names this replica under the term now. */
		boolean names() {
			return this != LEFT_TO_A_NEWER_TERM;
		}

		/** Whether the slice was written. */
		boolean written() {
			return this.reason != null;
		}

		/** Why the slice was written; {@code null} when it was not. */
		String reason() {
			return this.reason;
		}

	}

	/**
	 * The Service of the slice, as read.
	 *
	 * @param exists whether the Service exists
	 * @param uid its uid, which the slice names as its owner; {@code null} when unknown, the
	 * slice's owner references then staying as they are
	 */
	private record Owner(boolean exists, String uid) {

		/** No Service of the slice's name. */
		static final Owner MISSING = new Owner(false, null);

		/** A Service that could not be read, or need not be. */
		static final Owner UNKNOWN = new Owner(true, null);

	}

}
