package io.leaderelection.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.store.LeaderKeyStore;
import io.leaderelection.store.LeaseStoreFactory;
import io.leaderelection.store.MembershipStore;

/**
 * Creates the {@link KubernetesLeaseStore} of each election, and the store of balanced groups'
 * members, on a fabric8 client of their own, used for every Lease call and watch of every
 * election: built from a copy of the application's client configuration (server, credentials,
 * namespace, timeouts) with what the application set on its client's HTTP client (factory,
 * interceptors, TLS, proxy; see {@link ElectorClient}), on connections of its own.
 * <p>
 * A client of their own, because a client's HTTP connections are a shared queue: on the
 * application's client, a flood of slow application requests (large lists, a slow webhook, an
 * overloaded server) would hold every connection, and a renewal would wait behind them until
 * its renew deadline passed and the leader stepped down for nothing. On this client the elector's
 * few requests queue behind no one's but its own. (On the server, API Priority and Fairness
 * still puts both in the flow of the service account, unless a FlowSchema of their own gives the
 * Lease calls their own priority level, as the sample application's one does.)
 * <p>
 * The client's own retries are turned off: the engine retries on its own schedule, and a request
 * retried behind its back would outlive the renew deadline it was sent under.
 * <p>
 * Requests are sent from the sender's threads, never the engine's: fabric8 refreshes the
 * client's credentials on the sending thread, about once a minute, and an exec credential plugin
 * ({@code aws eks get-token}, {@code kubelogin}) runs as a process for as long as it takes. A
 * request's timeout counts from the engine's call, so a refresh that overruns it ends the call as
 * one without an answer, on time.
 * <p>
 * This object owns that client, and {@link #close()} closes it. Close it only after the elector
 * has stopped and released its Leases: in a Spring context that is the order anyway, since the
 * elector's lifecycle stops (and releases) before any bean is destroyed.
 */
public final class KubernetesLeaseStores implements LeaseStoreFactory, AutoCloseable {

	private final KubernetesClient client;

	private final ApiCalls calls;

	private final Executor watchOpener;

	/** The Pods holders run in, followed for the kubelet's word on their runs; {@code null} when not. */
	private volatile PodWatches pods;

	private volatile OwnContainer ownContainer;

	private volatile String exitTakeoverNamespace;

	/**
	 * @param client the application's fabric8 client, whose configuration and HTTP client settings
	 * the elector's own client is built with; it is not used for any call, and stays the
	 * application's to close
	 * @param watchOpener where watches are opened: fabric8 blocks until the server accepted a
	 * watch, and the engine's threads must never block
	 * @param sender where requests are handed to the HTTP client: fabric8 may refresh credentials
	 * first, and the engine's threads must never block
	 */
	public KubernetesLeaseStores(KubernetesClient client, Executor watchOpener, Executor sender) {
		this.client = ElectorClient.of(client,
				new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build());
		this.calls = new ApiCalls(this.client, sender);
		this.watchOpener = watchOpener;
	}

	/** The store of the Lease with the given namespace and name. */
	public KubernetesLeaseStore forLease(String namespace, String name) {
		return new KubernetesLeaseStore(this.client, this.calls, this.watchOpener, namespace, name, Map.of());
	}

	@Override
	public KubernetesLeaseStore create(ElectionSettings election) {
		boolean exitTakeover = election.forLife() == null && this.pods != null;
		return new KubernetesLeaseStore(this.client, this.calls, this.watchOpener, election.namespace(),
				election.leaseName(), LeaseLabels.of(election), exitTakeover ? this.ownContainer : null,
				exitTakeover ? this.pods : null);
	}

	/**
	 * Takes Leases over at once on the kubelet's proof that their holder's process ended: the Leases
	 * of lease-mode elections created from now on name the run of the container this process runs
	 * in, read from its Pod's status once the kubelet reports it running, and their followers watch
	 * the Pod of the run a holder names. Needs 'get' and 'watch' on 'pods'; without them, holders
	 * are waited out for their lease duration as before, which is logged once.
	 * @param podNamespace the namespace of the Pod this process runs in
	 * @param podName the Pod this process runs in
	 * @param container the container this process runs in; {@code null} for the Pod's only one
	 */
	public void takeOverOnExit(String podNamespace, String podName, String container) {
		takeOverOnExit(podNamespace, podName, container, OwnContainer.pidNamespaceStart());
	}

	/**
	 * As above, for a process that knows when its container started better than PID 1 of its PID
	 * namespace tells (a Pod sharing one PID namespace, whose PID 1 is the Pod's; a test).
	 * @param containerStartedNoEarlierThan when this process's container started, at the latest;
	 * {@code null} when unknown: its Pod's status is then taken as this run's once it says running
	 */
	public void takeOverOnExit(String podNamespace, String podName, String container, Instant containerStartedNoEarlierThan) {
		PodWatches watches = new PodWatches(this.client, this.calls, this.watchOpener);
		OwnContainer own = new OwnContainer(podNamespace, podName, container, containerStartedNoEarlierThan);
		this.pods = watches;
		this.ownContainer = own;
		this.exitTakeoverNamespace = podNamespace;
		own.start(watches);
	}

	@Override
	public LeaderKeyStore leaderKey(ElectionSettings election) {
		ElectionSettings.Migration migration = election.migration();
		return new ConfigMapLeaderKeyStore(this.calls,
				forLease(election.namespace(), election.leaseName()), election.namespace(), migration.configMapName(),
				migration.key());
	}

	@Override
	public MembershipStore membership(String namespace) {
		return new KubernetesMembership(this.client, this.watchOpener, namespace);
	}

	/**
	 * The route to the leader of the election, written on the elector's client: the EndpointSlice
	 * of a Service without selector naming this replica while it leads, and the label
	 * {@code leaderelection.io/<election>} on this replica's Pod; either may be left out.
	 * @param holder this replica's identity, recorded in the slice as the holder of the term
	 * @param endpoint this replica's endpoint in the slice of the election's Service; {@code null}
	 * for no slice
	 * @param podName the Pod this replica runs in, to label; {@code null} for no label
	 */
	public LeaderRoute route(ElectionSettings election, String holder, LeaderRoute.Endpoint endpoint, String podName) {
		LeaderEndpointSlice slice = (endpoint != null)
				? new LeaderEndpointSlice(this.calls, election.namespace(), holder, endpoint) : null;
		PodRoleLabel label = (podName != null)
				? new PodRoleLabel(this.calls, election.namespace(), podName, podLabel(election.name())) : null;
		return new LeaderRoute(election.name(), slice, label, election.renewDeadline(), election.retryPeriod());
	}

	/** The namespace of the Pod this process runs in when exit takeover is on ({@link #takeOverOnExit}); {@code null} when off. */
	public String exitTakeoverNamespace() {
		return this.exitTakeoverNamespace;
	}

	/** The key of the label telling whether a Pod leads the election: {@code leaderelection.io/<election>}. */
	public static String podLabel(String election) {
		return "leaderelection.io/" + LeaseLabels.value(election);
	}

	/** Reads a Service, on the elector's client; completes with {@code null} when there is none. */
	public CompletableFuture<Service> service(String namespace, String name, Duration timeout) {
		return this.calls.read(this.calls.coreObjectUri(namespace, "services", name), "Service " + namespace + "/" + name,
				Service.class, timeout);
	}

	/**
	 * Asks the API server, on the elector's client, whether the elector may do what it needs: one
	 * SelfSubjectAccessReview per permission, all at once ({@link PermissionReview}).
	 * @param timeout how long each review may take
	 * @return completes, never exceptionally, with the permissions denied and those not answered
	 */
	public CompletableFuture<PermissionReview.Result> reviewPermissions(List<Permission> needed, Duration timeout) {
		return new PermissionReview(this.calls).review(needed, timeout);
	}

	/** Closes the elector's client: calls still under way fail, watches end. */
	@Override
	public void close() {
		PodWatches watches = this.pods;
		if (watches != null) {
			watches.close();
		}
		this.client.close();
	}

}
