package io.leaderelection.autoconfigure.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.InvalidLeaderElectionPropertyException;
import io.leaderelection.autoconfigure.LeaderElectionLifecycle;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.kubernetes.LeaderRoute;
import io.leaderelection.store.LeaseStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * The routes to the leaders of the routed elections. Started after the web server, whose port
 * an endpoint defaults to, and before the elector campaigns: it checks each Service (it exists,
 * has no selector, and each of its ports has a port of the same name here), labels this replica's
 * Pod {@code follower}, and registers each route as leader work of its election, written once a
 * term began and withdrawn when its gate closed.
 */
public class LeaderRoutes implements SmartLifecycle, DisposableBean {

	/** After the web server starts, before the elector campaigns. */
	static final int PHASE = LeaderElectionLifecycle.PHASE - 1;

	/** The name the routes are registered under, as gated beans are. */
	static final String NAME = "leaderRoute";

	private static final Logger logger = LoggerFactory.getLogger(LeaderRoutes.class);

	private final List<ElectionRouting> routings;

	private final KubernetesLeaseStores stores;

	private final LeaderElector elector;

	private final LeaderOnlyRegistry registry;

	private final Environment environment;

	/** Built at the first start; guarded by this. */
	private List<LeaderRoute> routes;

	private volatile boolean running;

	LeaderRoutes(List<ElectionRouting> routings, KubernetesLeaseStores stores, LeaderElector elector,
			LeaderOnlyRegistry registry, Environment environment) {
		this.routings = List.copyOf(routings);
		this.stores = stores;
		this.elector = elector;
		this.registry = registry;
		this.environment = environment;
	}

	@Override
	public synchronized void start() {
		if (this.routes == null) {
			List<LeaderRoute> routes = new ArrayList<>();
			for (ElectionRouting routing : this.routings) {
				routes.add(route(routing));
			}
			this.routes = routes;
			for (int i = 0; i < routes.size(); i++) {
				String election = this.routings.get(i).election().name();
				GatedRoute gated = new GatedRoute(routes.get(i), this.elector, election);
				this.registry.register(election, gated, NAME);
				this.registry.whenGateCloses(election, gated::withdraw, "withdrawal of the " + routes.get(i).describe());
			}
		}
		// not leading yet: nothing to withdraw, the Pod is labelled follower
		this.routes.forEach(LeaderRoute::follow);
		this.running = true;
	}

	private LeaderRoute route(ElectionRouting routing) {
		ElectionSettings election = routing.election();
		LeaderRoute.Endpoint endpoint = null;
		if (routing.service() != null) {
			Map<String, Integer> ports = ports(routing);
			check(routing, service(routing), ports);
			endpoint = new LeaderRoute.Endpoint(routing.service(), routing.address(), ports, routing.podName());
		}
		LeaderRoute route = this.stores.route(election, this.elector.identity(), endpoint,
				routing.podLabel() ? routing.podName() : null);
		logger.info("Leader election keeps the {}", route.describe());
		return route;
	}

	/** The configured ports, else the web server's, named http. */
	private Map<String, Integer> ports(ElectionRouting routing) {
		if (!routing.ports().isEmpty()) {
			return routing.ports();
		}
		Integer port = this.environment.getProperty("local.server.port", Integer.class);
		if (port == null || port <= 0) {
			throw new InvalidLeaderElectionPropertyException(routing.prefix() + ".ports", Map.of(),
					"must be set for the Service of election '" + routing.election().name() + "': no web server "
							+ "runs whose port it would default to");
		}
		return Map.of(ElectionRouting.WEB_SERVER_PORT_NAME, port);
	}

	/** The Service as it is now; {@code null} when it cannot be read, which is told but not fatal. */
	private Service service(ElectionRouting routing) {
		ElectionSettings election = routing.election();
		String described = "Service " + election.namespace() + "/" + routing.service();
		try {
			Service service = this.stores.service(election.namespace(), routing.service(), election.renewDeadline())
				.get(election.renewDeadline().toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
			if (service == null) {
				throw new InvalidLeaderElectionPropertyException(routing.prefix() + ".service", routing.service(),
						"names no Service in namespace '" + election.namespace() + "': create one without a selector, "
								+ "with the ports this replica serves");
			}
			return service;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			logger.warn("Cannot check {} for election '{}' ({}); its EndpointSlice is written all the same{}",
					described, election.name(), cause.getMessage(),
					(cause instanceof LeaseStoreException storeFailure && storeFailure.getStatusCode() == 403)
							? ", without the Service as its owner: grant 'get' on 'services' to check it at start and "
									+ "to make it the owner of the slice"
							: "");
			return null;
		}
	}

	/**
	 * Checks that the Service routes to the slice: it has no selector (else Kubernetes writes its
	 * endpoints from the Pods it selects), is not an ExternalName, and each of its ports has a port
	 * of the same name here (the only way a Service port finds its endpoint port).
	 */
	private static void check(ElectionRouting routing, Service service, Map<String, Integer> ports) {
		if (service == null || service.getSpec() == null) {
			return;
		}
		String serviceProperty = routing.prefix() + ".service";
		Map<String, String> selector = service.getSpec().getSelector();
		if (selector != null && !selector.isEmpty()) {
			throw new InvalidLeaderElectionPropertyException(serviceProperty, routing.service(),
					"names a Service with a selector (" + new TreeMap<>(selector) + "): Kubernetes would route it to "
							+ "every Pod it selects; the leader-only Service must have no selector, so that its "
							+ "endpoints are the EndpointSlice the leader writes");
		}
		if ("ExternalName".equals(service.getSpec().getType())) {
			throw new InvalidLeaderElectionPropertyException(serviceProperty, routing.service(),
					"names a Service of type ExternalName, which has no endpoints; use a Service of type ClusterIP "
							+ "without a selector");
		}
		List<String> unmatched = new ArrayList<>();
		for (ServicePort port : (service.getSpec().getPorts() != null) ? service.getSpec().getPorts()
				: List.<ServicePort>of()) {
			String name = Objects.requireNonNullElse(port.getName(), "");
			if (!ports.containsKey(name)) {
				unmatched.add(name.isEmpty() ? "(unnamed)" : name);
			}
		}
		if (!unmatched.isEmpty()) {
			throw new InvalidLeaderElectionPropertyException(routing.prefix() + ".ports", new TreeMap<>(ports),
					"has no port named as the port(s) " + unmatched + " of Service " + routing.election().namespace()
							+ "/" + routing.service() + " (ports here: " + new TreeSet<>(ports.keySet()) + "): a "
							+ "Service port reaches the endpoint port of its own name; name them alike");
		}
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** Stops trying again: the elector has stopped, and withdrawn the routes it wrote. */
	@Override
	public synchronized void destroy() {
		if (this.routes != null) {
			this.routes.forEach(LeaderRoute::close);
		}
	}

}
