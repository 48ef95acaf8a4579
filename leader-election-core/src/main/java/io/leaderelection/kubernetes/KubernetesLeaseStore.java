package io.leaderelection.kubernetes;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.ContainerInstance;
import io.leaderelection.store.ForLifeLockStore;
import io.leaderelection.store.HolderExits;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.LeaseWatch;
import io.leaderelection.store.PodReference;
import io.leaderelection.store.PodState;

/**
 * A {@code coordination.k8s.io/v1} Lease read and written through the fabric8 client's
 * asynchronous HTTP client, with a timeout on every request. Created by
 * {@link KubernetesLeaseStores}. The Lease looks exactly like the
 * ones client-go writes, so mixed fleets and {@code kubectl get lease} work.
 * <p>
 * An update writes the very object it was based on, read from the server, with only the
 * election fields changed, so labels, annotations, owner references, finalizers and spec
 * fields this library does not own (preferredHolder, strategy) are written as they were read.
 * <p>
 * As a leader-for-life lock, the Lease is created with an owner reference to the holder's Pod
 * (name and uid, nothing else: no {@code blockOwnerDeletion}, which would need the right to set
 * finalizers on Pods), and deleted with a uid and resourceVersion precondition.
 */
public final class KubernetesLeaseStore implements ForLifeLockStore {

	/**
	 * The annotation in which a lease-mode holder names the run of the container it runs in, for
	 * followers to take over on the kubelet's word that it ended; each holder writes its own.
	 */
	public static final String HOLDER_INSTANCE_ANNOTATION = "leaderelection.io/holder-instance";

	private static final String JSON = ApiCalls.JSON;

	/** How the API server words a write whose uid precondition failed: the object is not the one written. */
	private static final String UID_PRECONDITION_FAILED = "Precondition failed: UID in precondition";

	private final KubernetesClient client;

	private final ApiCalls calls;

	private final Executor watchOpener;

	private final KubernetesSerialization serialization;

	private final String namespace;

	private final String name;

	private final String collectionUri;

	private final String objectUri;

	private final String description;

	private final String podsUri;

	private final String nodesUri;

	/** The labels a Lease this store creates carries; an update keeps those the Lease has. */
	private final Map<String, String> labels;

	private final WindowsAnnotation windows;

	/** Names the holder's container run in the Lease; {@code null} when this store's Leases name none. */
	private final OwnContainer ownContainer;

	private final HolderInstanceAnnotation holderInstance;

	private final HolderExits holderExits;

	KubernetesLeaseStore(KubernetesClient client, ApiCalls calls, Executor watchOpener, String namespace, String name,
			Map<String, String> labels) {
		this(client, calls, watchOpener, namespace, name, labels, null, null);
	}

	/**
	 * @param ownContainer the run this process is, named in every version this store writes with a
	 * holder; {@code null} to name none
	 * @param pods where the runs other holders name are followed; {@code null} to follow none
	 */
	KubernetesLeaseStore(KubernetesClient client, ApiCalls calls, Executor watchOpener, String namespace, String name,
			Map<String, String> labels, OwnContainer ownContainer, PodWatches pods) {
		this.client = client;
		this.calls = calls;
		this.watchOpener = watchOpener;
		this.serialization = client.getKubernetesSerialization();
		this.namespace = namespace;
		this.name = name;
		this.labels = Map.copyOf(labels);
		String master = client.getMasterUrl().toString();
		this.collectionUri = (master.endsWith("/") ? master : master + "/") + "apis/coordination.k8s.io/v1/namespaces/"
				+ encode(namespace) + "/leases";
		this.objectUri = this.collectionUri + "/" + encode(name);
		this.description = "Lease " + namespace + "/" + name;
		this.windows = new WindowsAnnotation(this.serialization, this.description);
		this.ownContainer = ownContainer;
		this.holderInstance = new HolderInstanceAnnotation(this.serialization, this.description);
		this.holderExits = (pods != null) ? new KubernetesHolderExits(this.holderInstance, pods) : HolderExits.NONE;
		String api = (master.endsWith("/") ? master : master + "/") + "api/v1/";
		this.podsUri = api + "namespaces/" + encode(namespace) + "/pods/";
		this.nodesUri = api + "nodes/";
	}

	@Override
	public String describe() {
		return this.description;
	}

	@Override
	public CompletableFuture<LeaseRecord> get(Duration timeout) {
		HttpRequest request = this.calls.request(this.objectUri, timeout).build();
		return send("get", request, timeout).thenApply((response) -> {
			if (response.code() == 404) {
				return null;
			}
			return stored("get", response);
		});
	}

	@Override
	public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
		Lease lease = newLease();
		HttpRequest request = this.calls.request(this.collectionUri, timeout).post(JSON, json(lease, record)).build();
		return send("create", request, timeout).thenApply((response) -> stored("create", response));
	}

	@Override
	public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
		Lease lease = (record.stored() instanceof Lease read) ? this.serialization.clone(read) : newLease();
		lease.getMetadata().setResourceVersion(record.resourceVersion());
		if (record.uid() != null) {
			// without a uid, a real API server creates a Lease that was deleted meanwhile
			lease.getMetadata().setUid(record.uid());
		}
		HttpRequest request = this.calls.request(this.objectUri, timeout).put(JSON, json(lease, record)).build();
		return send("update", request, timeout).thenApply((response) -> stored("update", response));
	}

	@Override
	public HolderExits holderExits() {
		return this.holderExits;
	}

	@Override
	public PodReference podOwner(LeaseRecord version) {
		if (!(version.stored() instanceof Lease lease) || lease.getMetadata().getOwnerReferences() == null) {
			return null;
		}
		return lease.getMetadata()
			.getOwnerReferences()
			.stream()
			.filter((owner) -> "v1".equals(owner.getApiVersion()) && "Pod".equals(owner.getKind())
					&& owner.getName() != null && owner.getUid() != null)
			.map((owner) -> new PodReference(owner.getName(), owner.getUid()))
			.findFirst()
			.orElse(null);
	}

	@Override
	public CompletableFuture<LeaseRecord> createOwnedBy(LeaseRecord record, PodReference owner, Duration timeout) {
		Lease lease = newLease();
		lease.getMetadata()
			.setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("v1")
				.withKind("Pod")
				.withName(owner.name())
				.withUid(owner.uid())
				.build()));
		HttpRequest request = this.calls.request(this.collectionUri, timeout).post(JSON, json(lease, record)).build();
		return send("create", request, timeout).thenApply((response) -> stored("create", response));
	}

	@Override
	public CompletableFuture<Void> delete(LeaseRecord version, Duration timeout) {
		DeleteOptions options = new DeleteOptionsBuilder().withApiVersion("v1")
			.withKind("DeleteOptions")
			.withNewPreconditions()
			.withUid(version.uid())
			.withResourceVersion(version.resourceVersion())
			.endPreconditions()
			.build();
		HttpRequest request = this.calls.request(this.objectUri, timeout).delete(JSON, this.serialization.asJson(options))
			.build();
		return send("delete", request, timeout).thenApply((response) -> {
			int code = response.code();
			if (code == 200 || code == 202) {
				return null;
			}
			String detail = code + " " + this.calls.reason(response);
			if (code == 409) {
				throw new LeaseConflictException("delete", this.description, detail);
			}
			if (code == 404) {
				throw new LeaseNotFoundException("delete", this.description, detail);
			}
			throw new LeaseStoreException("delete", this.description, code, detail);
		});
	}

	@Override
	public CompletableFuture<PodState> pod(String name, Duration timeout) {
		String described = "Pod " + this.namespace + "/" + name;
		return this.calls.read(this.podsUri + encode(name), described, Pod.class, timeout).thenApply((pod) -> (pod == null) ? null
				: new PodState(pod.getMetadata().getName(), pod.getMetadata().getUid(),
						(pod.getStatus() != null) ? pod.getStatus().getPhase() : null,
						pod.getMetadata().getDeletionTimestamp() != null,
						(pod.getMetadata().getDeletionGracePeriodSeconds() != null)
								? pod.getMetadata().getDeletionGracePeriodSeconds().intValue() : null,
						(pod.getSpec() != null) ? pod.getSpec().getNodeName() : null, deletedForItsNode(pod),
						hasCondition(pod, "Ready", null)));
	}

	private static boolean deletedForItsNode(Pod pod) {
		return hasCondition(pod, "DisruptionTarget", "DeletionByTaintManager");
	}

	/** Whether the Pod reports the condition True, for the given reason unless {@code null}. */
	private static boolean hasCondition(Pod pod, String type, String reason) {
		return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus()
			.getConditions()
			.stream()
			.anyMatch((condition) -> type.equals(condition.getType()) && "True".equals(condition.getStatus())
					&& (reason == null || reason.equals(condition.getReason())));
	}

	@Override
	public CompletableFuture<Boolean> nodeReady(String nodeName, Duration timeout) {
		return this.calls.read(this.nodesUri + encode(nodeName), "Node " + nodeName, Node.class, timeout)
			.thenApply((node) -> node != null && node.getStatus() != null && node.getStatus().getConditions() != null
					&& node.getStatus()
						.getConditions()
						.stream()
						.anyMatch((condition) -> "Ready".equals(condition.getType())
								&& "True".equals(condition.getStatus())));
	}

	/**
	 * Opens the watch on the watch opener and returns at once; the listener is told when the
	 * server has accepted it, and a watch the server refuses ends with the refusal. Without a
	 * resourceVersion, the server starts the watch with the Lease's current version.
	 */
	@Override
	public LeaseWatch watch(LeaseWatch.Listener listener) {
		OpeningWatch watch = new OpeningWatch();
		this.watchOpener.execute(() -> watch.open(() -> this.client.leases()
			.inNamespace(this.namespace)
			.withName(this.name)
			.watch(new Watcher<Lease>() {
				@Override
				public void eventReceived(Action action, Lease lease) {
					if (action == Action.DELETED) {
						listener.deleted(record(lease));
					}
					else if (action == Action.ADDED || action == Action.MODIFIED) {
						listener.changed(record(lease));
					}
				}

				@Override
				public void onClose(WatcherException cause) {
					listener.ended(cause);
				}
			}), listener));
		return watch;
	}

	private Lease newLease() {
		Lease lease = new Lease();
		lease.setMetadata(new ObjectMeta());
		lease.getMetadata().setName(this.name);
		lease.getMetadata().setNamespace(this.namespace);
		if (!this.labels.isEmpty()) {
			lease.getMetadata().setLabels(new LinkedHashMap<>(this.labels));
		}
		lease.setSpec(new LeaseSpec());
		return lease;
	}

	private String json(Lease lease, LeaseRecord record) {
		lease.setApiVersion("coordination.k8s.io/v1");
		lease.setKind("Lease");
		if (lease.getSpec() == null) {
			lease.setSpec(new LeaseSpec());
		}
		LeaseSpec spec = lease.getSpec();
		spec.setHolderIdentity(record.holderIdentity());
		spec.setLeaseDurationSeconds(record.leaseDurationSeconds());
		spec.setAcquireTime(microTime(record.acquireTime()));
		spec.setRenewTime(microTime(record.renewTime()));
		spec.setLeaseTransitions(record.leaseTransitions());
		this.windows.write(record.windows(), lease.getMetadata());
		if (this.ownContainer != null) {
			// every version of ours names the run that wrote it; a release, and a claim before this run is known, none
			ContainerInstance own = record.hasHolder() ? this.ownContainer.instance() : null;
			this.holderInstance.write((own != null) ? own.heldBy(record.holderIdentity()) : null, lease.getMetadata());
		}
		return this.serialization.asJson(lease);
	}

	private CompletableFuture<HttpResponse<String>> send(String verb, HttpRequest request, Duration timeout) {
		return this.calls.send(verb, request, timeout, this.description);
	}

	private LeaseRecord stored(String verb, HttpResponse<String> response) {
		int code = response.code();
		if (code == 200 || code == 201) {
			return record(parse(verb, response.body()));
		}
		String reason = this.calls.reason(response);
		String detail = code + " " + reason;
		if (code == 409 && "update".equals(verb) && reason.contains(UID_PRECONDITION_FAILED)) {
			// The object written was deleted: a real API server answers an update of a missing Lease
			// whose body names its uid with this conflict, not a 404 (a Lease may be created by an update).
			throw new LeaseNotFoundException(verb, this.description, code, detail);
		}
		if (code == 409) {
			throw new LeaseConflictException(verb, this.description, detail);
		}
		if (code == 404 && "update".equals(verb)) {
			throw new LeaseNotFoundException(verb, this.description, detail);
		}
		if (code == 404 && "create".equals(verb)) {
			throw new LeaseStoreException(verb, this.description, code,
					detail + " (does namespace '" + this.namespace + "' exist?)");
		}
		throw new LeaseStoreException(verb, this.description, code, detail);
	}

	private Lease parse(String verb, String body) {
		Object parsed;
		try {
			parsed = this.serialization.unmarshal(body);
		}
		catch (RuntimeException ex) {
			throw new LeaseStoreException(verb, this.description, 0, "unreadable answer: " + ApiCalls.unreadable(ex), ex);
		}
		if (!(parsed instanceof Lease lease)) {
			String kind = (parsed != null) ? parsed.getClass().getSimpleName() : "nothing";
			throw new LeaseStoreException(verb, this.description, 0, "the server answered with " + kind
					+ " instead of a coordination.k8s.io/v1 Lease");
		}
		return lease;
	}



	/** A watch that may still be opening when it is closed. */
	private static final class OpeningWatch implements LeaseWatch {

		private Watch opened;

		private boolean closed;

		void open(Supplier<Watch> opener, LeaseWatch.Listener listener) {
			synchronized (this) {
				if (this.closed) {
					return;
				}
			}
			Watch watch;
			try {
				// fabric8 returns once the server has accepted the watch
				watch = opener.get();
			}
			catch (RuntimeException ex) {
				listener.ended(ex);
				return;
			}
			synchronized (this) {
				if (!this.closed) {
					this.opened = watch;
					listener.opened();
					return;
				}
			}
			watch.close();
		}

		@Override
		public synchronized void close() {
			this.closed = true;
			if (this.opened != null) {
				this.opened.close();
			}
		}

	}

	private LeaseRecord record(Lease lease) {
		LeaseSpec spec = (lease.getSpec() != null) ? lease.getSpec() : new LeaseSpec();
		return new LeaseRecord(spec.getHolderIdentity(), spec.getLeaseDurationSeconds(), instant(spec.getAcquireTime()),
				instant(spec.getRenewTime()), spec.getLeaseTransitions(), spec.getPreferredHolder(),
				lease.getMetadata().getUid(), lease.getMetadata().getResourceVersion(), lease,
				this.windows.read(lease.getMetadata()));
	}

	/** client-go's MicroTime: UTC, six fractional digits. */
	private static ZonedDateTime microTime(Instant instant) {
		return (instant != null) ? instant.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC) : null;
	}

	private static Instant instant(ZonedDateTime time) {
		return (time != null) ? time.toInstant() : null;
	}

	static String encode(String segment) {
		return URLEncoder.encode(segment, StandardCharsets.UTF_8);
	}

}
