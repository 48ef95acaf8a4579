package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replicas of one fault test on the control plane, and what the test measures about them: a
 * namespace, a ServiceAccount per replica (so that the audit logs tell the replicas apart), each
 * bound to the Role the docs give; the API servers and proxies the test adds, stopped with it;
 * the terms of the election ({@link Terms}) and each replica's successful renewals; the requests
 * each replica made of a Lease, as the API servers logged them; and the one line each test prints
 * with what it counted.
 */
final class FaultReplicas implements AutoCloseable {

	/** The timings of {@link EngineReplica#election}: lease duration, renew deadline, retry period. */
	static final Duration LEASE_DURATION = Duration.ofSeconds(3);

	static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);

	static final Duration RETRY_PERIOD = Duration.ofMillis(500);

	/** How long an election may take when nothing is wrong: a lease duration for a new Lease, and slack. */
	static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(20);

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final Pattern RESOURCE_VERSION = Pattern.compile("[?&]resourceVersion=(\\d+)");

	private final ControlPlane controlPlane;

	private final TestNamespace namespace;

	private final List<PolicyRule> rules;

	private final String election;

	private final Terms terms;

	private final Map<String, TestNamespace.ServiceAccount> accounts = new LinkedHashMap<>();

	private final List<EngineReplica> replicas = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();

	private final List<ApiServer> servers = new ArrayList<>();

	private final List<LinkProxy> links = new ArrayList<>();

	/** Where each server's audit log stood when it was started again, and when it was ready. */
	private final Map<ApiServer, List<long[]>> startingAgain = new LinkedHashMap<>();

	FaultReplicas(ControlPlane controlPlane, String prefix, String election, DocumentedRoles... roles) {
		this.controlPlane = controlPlane;
		this.namespace = controlPlane.namespace(prefix);
		this.rules = DocumentedRoles.rules(roles);
		this.election = election;
		this.terms = new Terms(election);
	}

	TestNamespace namespace() {
		return this.namespace;
	}

	Terms terms() {
		return this.terms;
	}

	/** The settings of the test's election on the given Lease, at the scaled-down timings. */
	ElectionSettings election(String leaseName) {
		return new ElectionSettings(this.election, this.namespace.name(), leaseName, LEASE_DURATION, RENEW_DEADLINE,
				RETRY_PERIOD)
			.renewingEvery(RETRY_PERIOD);
	}

	/** Another API server on the control plane's etcd, counted in the checks of what was refused, stopped with the test. */
	ApiServer startApiServer(String name, String... flags) {
		ApiServer server = this.controlPlane.startApiServer(name, flags);
		this.servers.add(server);
		this.namespace.alsoServedBy(server);
		return server;
	}

	/** Another API server that reaches etcd at the given address, otherwise as {@link #startApiServer}. */
	ApiServer startApiServerOn(String etcdUrl, String name, String... flags) {
		ApiServer server = this.controlPlane.startApiServerOn(etcdUrl, name, flags);
		this.servers.add(server);
		this.namespace.alsoServedBy(server);
		return server;
	}

	/**
	 * Starts a server again that was killed, and notes which of its answers came before it was
	 * ready: a restarted API server answers as soon as it listens, before its caches of
	 * ServiceAccounts and RBAC rules are filled, and refuses meanwhile (401, 403) what it allows once
	 * ready.
	 */
	void startAgain(ApiServer server) {
		long from = server.auditLog().mark();
		server.start();
		this.startingAgain.computeIfAbsent(server, (key) -> new ArrayList<>())
			.add(new long[] { from, server.auditLog().mark() });
	}

	/** The requests of the test's replicas that a server answered 401, 403 or 422 while starting again. */
	List<AuditLog.Request> refusedWhileStarting() {
		String namespacePath = "/namespaces/" + this.namespace.name() + "/";
		List<AuditLog.Request> refused = new ArrayList<>();
		this.startingAgain.forEach((server, windows) -> windows.forEach((window) -> refused
			.addAll(between(server, window, (request) -> request.uri().contains(namespacePath)
					&& (request.refused() || request.code() == 401)))));
		return refused;
	}

	/**
	 * The requests of the test's replicas that an API server refused (403 or 422), but for those a
	 * server answered while starting again, before it was ready ({@link #refusedWhileStarting()}).
	 */
	List<AuditLog.Request> refused() {
		String users = "system:serviceaccount:" + this.namespace.name() + ":";
		Predicate<AuditLog.Request> refusal = (request) -> request.user().startsWith(users)
				&& request.refused();
		List<AuditLog.Request> refused = new ArrayList<>();
		List<ApiServer> all = new ArrayList<>(List.of(this.controlPlane.apiServer()));
		all.addAll(this.servers);
		for (ApiServer server : all) {
			List<long[]> windows = this.startingAgain.getOrDefault(server, List.of());
			long from = 0;
			for (long[] window : windows) {
				refused.addAll(between(server, new long[] { from, window[0] }, refusal));
				from = window[1];
			}
			refused.addAll(server.auditLog().since(from, refusal));
		}
		return refused;
	}

	/** How many of the requests were answered with each code, e.g. {@code 2 x 403, 1 x 401}; "none" when empty. */
	static String byCode(List<AuditLog.Request> requests) {
		if (requests.isEmpty()) {
			return "none";
		}
		Map<Integer, Long> counts = new TreeMap<>(requests.stream()
			.collect(Collectors.groupingBy(AuditLog.Request::code,
					Collectors.counting())));
		return counts.entrySet()
			.stream()
			.map((entry) -> entry.getValue() + " x " + entry.getKey())
			.collect(Collectors.joining(", "));
	}

	/** The requests the server's audit log tells between two marks. */
	private static List<AuditLog.Request> between(ApiServer server, long[] window,
			Predicate<AuditLog.Request> matching) {
		List<AuditLog.Request> from = server.auditLog().since(window[0], matching);
		int after = server.auditLog().since(window[1], matching).size();
		return from.subList(0, from.size() - after);
	}

	/** A proxy of the replica's own between it and the given API server, closed with the test. */
	LinkProxy link(ApiServer server) {
		LinkProxy link = LinkProxy.to(server);
		this.links.add(link);
		return link;
	}

	/** A proxy to a port on loopback, closed with the test. */
	LinkProxy linkToPort(int port) {
		LinkProxy link = LinkProxy.toPort(port);
		this.links.add(link);
		return link;
	}

	/**
	 * The client configuration of the given replica, as its own ServiceAccount, for the given API
	 * server, once that server authorizes it: its RBAC rules are created through the first server,
	 * and another learns of them through its own watch, a moment later (until then it refuses the
	 * replica's requests with 403).
	 */
	Config config(String identity, ApiServer server) {
		TestNamespace.ServiceAccount account = account(identity);
		awaitAuthorized(account, server);
		return account.config(server);
	}

	private void awaitAuthorized(TestNamespace.ServiceAccount account, ApiServer server) {
		try (KubernetesClient admin = new KubernetesClientBuilder().withConfig(this.controlPlane.adminConfig(server))
			.build()) {
			SubjectAccessReview review = new SubjectAccessReviewBuilder().withNewSpec()
				.withUser(account.user())
				.withGroups("system:serviceaccounts", "system:serviceaccounts:" + this.namespace.name(),
						"system:authenticated")
				.withNewResourceAttributes()
				.withNamespace(this.namespace.name())
				.withGroup("coordination.k8s.io")
				.withResource("leases")
				.withVerb("watch")
				.endResourceAttributes()
				.endSpec()
				.build();
			await(account.user() + " authorized by " + server).atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> admin.authorization().v1().subjectAccessReview().create(review).getStatus().getAllowed());
		}
	}

	/** The same through the given proxy to that server. */
	Config config(String identity, ApiServer server, LinkProxy link) {
		return new ConfigBuilder(config(identity, server)).withMasterUrl(link.url()).build();
	}

	/** The user the API servers know the given replica by. */
	String user(String identity) {
		return account(identity).user();
	}

	private synchronized TestNamespace.ServiceAccount account(String identity) {
		return this.accounts.computeIfAbsent(identity, (name) -> this.namespace.serviceAccount(name, this.rules));
	}

	/** Starts a replica that campaigns at once; its terms of the test's election are recorded. */
	EngineReplica start(String identity, Config config, List<ElectionSettings> elections,
			ElectionListener... listeners) {
		EngineReplica replica = EngineReplica.start(identity, config, elections, listeners(identity, listeners));
		this.replicas.add(replica);
		return replica;
	}

	/** Starts a replica that only follows until its engine is started. */
	EngineReplica follow(String identity, Config config, List<ElectionSettings> elections) {
		EngineReplica replica = EngineReplica.follow(identity, config, elections, listeners(identity));
		this.replicas.add(replica);
		return replica;
	}

	private ElectionListener[] listeners(String identity, ElectionListener... extra) {
		AtomicInteger renewed = this.renewals.computeIfAbsent(identity, (name) -> new AtomicInteger());
		ElectionListener counting = new ElectionListener() {
			@Override
			public void renewed(String election, boolean success, long nanos) {
				if (success && election.equals(FaultReplicas.this.election)) {
					renewed.incrementAndGet();
				}
			}
		};
		return Stream.concat(Stream.of(this.terms.recorderFor(identity), counting), Stream.of(extra))
			.toArray(ElectionListener[]::new);
	}

	List<EngineReplica> replicas() {
		return List.copyOf(this.replicas);
	}

	/** The renewals of the given replica that it learned succeeded. */
	int renewals(String identity) {
		AtomicInteger renewed = this.renewals.get(identity);
		return (renewed != null) ? renewed.get() : 0;
	}

	EngineReplica awaitLeader() {
		return awaitLeaderOtherThan(null, ELECTION_TIMEOUT);
	}

	/** Waits until a replica other than the given one leads, and returns it. */
	EngineReplica awaitLeaderOtherThan(EngineReplica other, Duration atMost) {
		await("a leader other than " + other).atMost(atMost)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.replicas.stream()
				.anyMatch((replica) -> replica != other && replica.isLeader(this.election)));
		EngineReplica leader = this.replicas.stream()
			.filter((replica) -> replica != other && replica.isLeader(this.election))
			.findFirst()
			.orElseThrow();
		// the listeners hear of a grant, and of the revocation before it, just after the gates moved
		await("the terms recorded").atMost(Duration.ofSeconds(5))
			.until(() -> this.terms.all()
				.stream()
				.filter((term) -> term.closedAt == Long.MAX_VALUE)
				.map((term) -> term.replica)
				.toList()
				.equals(List.of(leader.identity())));
		return leader;
	}

	/** The other replicas than the given one. */
	List<EngineReplica> others(EngineReplica replica) {
		return this.replicas.stream().filter((other) -> other != replica).toList();
	}

	/**
	 * The requests the given replica made of the given Lease, answered by the given server since the
	 * mark: reads, writes, and watches (named by a field selector).
	 */
	List<AuditLog.Request> leaseRequests(ApiServer server, long mark, EngineReplica replica, String leaseName) {
		String user = user(replica.identity());
		return server.auditLog()
			.since(mark, (request) -> request.user().equals(user) && isLease(request, leaseName));
	}

	/** The watches of the Lease the given replica opened since the mark, as the server began them. */
	List<AuditLog.Request> watchesOpened(ApiServer server, long mark, EngineReplica replica, String leaseName) {
		return leaseRequests(server, mark, replica, leaseName).stream()
			.filter((request) -> request.verb().equals("watch") && !request.completed())
			.toList();
	}

	/** The reads of the Lease by the given replica since the mark. */
	List<AuditLog.Request> reads(ApiServer server, long mark, EngineReplica replica, String leaseName) {
		return leaseRequests(server, mark, replica, leaseName).stream()
			.filter((request) -> request.verb().equals("get"))
			.toList();
	}

	/** The version a watch was asked to start after; -1 for a watch from now (none given, or 0). */
	static long watchedFrom(AuditLog.Request watch) {
		Matcher matcher = RESOURCE_VERSION.matcher(watch.uri());
		return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
	}

	static boolean isLease(AuditLog.Request request, String leaseName) {
		return request.resource().equals("leases.coordination.k8s.io") && (request.name().equals(leaseName)
				|| request.uri().contains("metadata.name%3D" + leaseName + "&")
				|| request.uri().endsWith("metadata.name%3D" + leaseName));
	}

	Lease lease(String leaseName) {
		return this.controlPlane.admin().leases().inNamespace(this.namespace.name()).withName(leaseName).get();
	}

	/**
	 * Writes two objects unrelated to the Lease, so that etcd's revision moves two past anything a
	 * replica has seen, then compacts etcd at its current revision; returns that revision. A watch
	 * resumed from a version v is then refused with 410 when v + 1, the first revision it asks
	 * for, is below it.
	 */
	long writeSomethingElseAndCompact() {
		for (int i = 0; i < 2; i++) {
			this.controlPlane.admin()
				.configMaps()
				.inNamespace(this.namespace.name())
				.resource(new ConfigMapBuilder().withNewMetadata()
					.withGenerateName("written-after-the-lease-")
					.endMetadata()
					.build())
				.create();
		}
		return this.controlPlane.etcd().compact();
	}

	/**
	 * How many watches of the Lease by the given replica the server has begun since the mark and
	 * not ended (yet): each watch's beginning and end are told by two lines of the audit log with
	 * the same audit id. A server that was killed never tells the end of the watches it served.
	 */
	int openWatches(ApiServer server, long mark, EngineReplica replica, String leaseName) {
		String user = user(replica.identity());
		Map<String, Boolean> ended = new LinkedHashMap<>();
		byte[] all;
		try {
			all = Files.readAllBytes(server.auditLog().file());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String text = new String(all, (int) Math.min(mark, all.length), (int) Math.max(0, all.length - mark),
				StandardCharsets.UTF_8);
		for (String line : text.split("\n")) {
			if (!line.endsWith("}")) {
				continue;
			}
			AuditLog.Request request = AuditLog.Request.of(line);
			if (request == null || !request.user().equals(user) || !request.verb().equals("watch")
					|| !isLease(request, leaseName)) {
				continue;
			}
			String id;
			try {
				id = JSON.readTree(line).path("auditID").asText();
			}
			catch (IOException ex) {
				continue;
			}
			if (request.completed()) {
				ended.computeIfPresent(id, (key, before) -> true);
			}
			else {
				ended.putIfAbsent(id, false);
			}
		}
		return (int) ended.values().stream().filter((done) -> !done).count();
	}

	/**
	 * Counts and asserts what every fault test asserts: no two gates open at once, fencing tokens
	 * strictly rising, nothing refused, and the time without a leader within the given bound; prints
	 * one line with the figures and whatever else the test measured.
	 */
	void report(String fault, Duration leaderlessBound, String measured) {
		List<Terms.Term> all = this.terms.all();
		int overlapping = 0;
		int regressions = 0;
		for (int i = 1; i < all.size(); i++) {
			if (all.get(i).openedAt < all.get(i - 1).closedAt) {
				overlapping++;
			}
			if (all.get(i).fencingToken <= all.get(i - 1).fencingToken) {
				regressions++;
			}
		}
		List<AuditLog.Request> refusedRequests = refused();
		int refused = refusedRequests.size();
		Duration leaderless = this.terms.leaderless(System.nanoTime());
		System.out.printf(
				"control plane, %s: terms %d, overlapping gates %d, fencing-token regressions %d, requests refused %d, "
						+ "leaderless %d ms (bound %d ms)%s%n",
				fault, all.size(), overlapping, regressions, refused, leaderless.toMillis(), leaderlessBound.toMillis(),
				measured.isEmpty() ? "" : "; " + measured);
		assertThat(overlapping).as("overlapping gates in %s", all).isZero();
		assertThat(regressions).as("fencing-token regressions in %s", all).isZero();
		this.terms.assertSafe();
		assertThat(refusedRequests).as("requests of the replicas in %s that an API server refused",
				this.namespace.name()).isEmpty();
		assertThat(leaderless).as("time without a leader, %s", fault).isLessThanOrEqualTo(leaderlessBound);
	}

	@Override
	public void close() {
		this.replicas.forEach(EngineReplica::close);
		this.links.forEach(LinkProxy::close);
		this.servers.forEach(this.controlPlane::stopApiServer);
		this.namespace.close();
	}

}
