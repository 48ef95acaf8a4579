package io.leaderelection.autoconfigure.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.InvalidLeaderElectionPropertyException;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionProperties.Routing;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.engine.ElectionSettings;

import org.springframework.util.StringUtils;

/**
 * Resolves the {@code routing} properties of every election into {@link ElectionRouting}s,
 * rejecting values that cannot route, naming the property. The top-level block routes the default
 * election and gives every election its address, ports and Pod label unless the election's own
 * block sets them; each election names its Service on its own.
 */
final class LeaderRoutingResolver {

	/** A Service name: a DNS-1035 label. */
	private static final Pattern SERVICE_NAME = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");

	/** A port name (IANA_SVC_NAME): lower-case letters, digits and single hyphens inside, a letter at least. */
	private static final Pattern PORT_NAME = Pattern.compile("(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*");

	private final UnaryOperator<String> environment;

	/**
	 * @param environment reads environment variables (POD_IP, POD_NAME, HOSTNAME)
	 */
	LeaderRoutingResolver(UnaryOperator<String> environment) {
		this.environment = environment;
	}

	/** The routing of every election that routes, in the order of the settings' elections. */
	List<ElectionRouting> resolve(LeaderElectionProperties properties, LeaderElectionSettings settings) {
		Routing top = properties.getRouting();
		String topPrefix = LeaderElectionProperties.PREFIX + ".routing";
		Map<String, String> electionByService = new HashMap<>();
		List<ElectionRouting> routings = new ArrayList<>();
		for (ElectionSettings election : settings.elections()) {
			String configured = (election.shard() != null) ? election.shard().election() : election.name();
			boolean isDefault = LeaderElector.DEFAULT_ELECTION.equals(configured);
			LeaderElectionProperties.Election named = properties.getElections().get(configured);
			Routing own = isDefault || named == null ? top : named.getRouting();
			String prefix = (own == top) ? topPrefix
					: LeaderElectionProperties.PREFIX + ".elections." + configured + ".routing";
			// blank, as an empty environment variable gives it, is unset
			String service = StringUtils.hasText(own.getService()) ? own.getService() : null;
			if (service != null) {
				service = service(prefix + ".service", service, election, configured);
				String other = electionByService.putIfAbsent(service, election.name());
				if (other != null) {
					throw new InvalidLeaderElectionPropertyException(prefix + ".service", service,
							"names the Service of election '" + other + "' too: a Service routes to one election's "
									+ "leader, so each election needs a Service of its own");
				}
			}
			Boolean podLabelSetting = (own.getPodLabel() != null) ? own.getPodLabel() : top.getPodLabel();
			boolean podLabel = (podLabelSetting != null) ? podLabelSetting : service != null;
			if (service == null && !podLabel) {
				continue;
			}
			String podName = podName();
			if (podLabel && podName == null) {
				throw new InvalidLeaderElectionPropertyException(
						(own.getPodLabel() != null || top.getPodLabel() == null) ? prefix + ".pod-label"
								: topPrefix + ".pod-label",
						true, "needs the environment variable POD_NAME (or HOSTNAME) naming the Pod this process runs "
								+ "in, to label it: set it from the downward API (env POD_NAME, valueFrom fieldRef "
								+ "metadata.name), or set pod-label to false");
			}
			String address = (service != null) ? address(own, top, prefix, topPrefix, election) : null;
			Map<String, Integer> ports = (service != null) ? ports(own, top, prefix, topPrefix) : Map.of();
			routings.add(new ElectionRouting(election, service, address, ports, podName, podLabel, prefix));
		}
		return routings;
	}

	private static String service(String property, String service, ElectionSettings election, String configured) {
		if (election.shard() != null) {
			throw new InvalidLeaderElectionPropertyException(property, service,
					"cannot route election '" + configured + "': it is split into " + election.shard().count()
							+ " shards, each led by its own replica, and a Service routes to one leader");
		}
		String trimmed = service.trim();
		if (trimmed.length() > 63 || !SERVICE_NAME.matcher(trimmed).matches()) {
			throw new InvalidLeaderElectionPropertyException(property, service,
					"must be the name of a Service, a DNS-1035 label (lower-case letters, digits and '-', starting "
							+ "with a letter, ending with a letter or digit, at most 63 characters)");
		}
		return trimmed;
	}

	private String address(Routing own, Routing top, String prefix, String topPrefix, ElectionSettings election) {
		String property;
		String address;
		String source;
		if (own.getAddress() != null) {
			property = prefix + ".address";
			address = own.getAddress();
			source = "";
		}
		else if (top.getAddress() != null) {
			property = topPrefix + ".address";
			address = top.getAddress();
			source = "";
		}
		else {
			property = topPrefix + ".address";
			address = this.environment.apply("POD_IP");
			source = " (from the environment variable POD_IP)";
			if (address == null || address.isBlank()) {
				throw new InvalidLeaderElectionPropertyException(property, null,
						"is needed by the Service of election '" + election.name() + "': set it to this replica's "
								+ "address, or set the environment variable POD_IP from the downward API (env POD_IP, "
								+ "valueFrom fieldRef status.podIP)");
			}
		}
		String trimmed = address.trim();
		EndpointAddress.Refusal refusal = EndpointAddress.refusal(trimmed);
		if (refusal == null) {
			return trimmed;
		}
		if (refusal.canonical() != null) {
			throw new InvalidLeaderElectionPropertyException(property, address,
					"must be written " + refusal.canonical() + source + ": " + trimmed + " " + refusal.reason());
		}
		if (refusal.equals(EndpointAddress.NOT_AN_ADDRESS)) {
			throw new InvalidLeaderElectionPropertyException(property, address,
					"must be an IPv4 or IPv6 address" + source + ": an EndpointSlice names its endpoints by address");
		}
		throw new InvalidLeaderElectionPropertyException(property, address, "must be an address the API server "
				+ "accepts in an EndpointSlice" + source + ": " + trimmed + " " + refusal.reason() + ", which it "
				+ "refuses (422 Unprocessable Entity); set it to this replica's Pod address (the downward API's "
				+ "status.podIP)");
	}

	private static Map<String, Integer> ports(Routing own, Routing top, String prefix, String topPrefix) {
		boolean ownPorts = !own.getPorts().isEmpty();
		Map<String, String> configured = ownPorts ? own.getPorts() : top.getPorts();
		String property = (ownPorts ? prefix : topPrefix) + ".ports";
		Map<String, Integer> ports = new LinkedHashMap<>();
		configured.forEach((name, value) -> {
			if (name.length() > 15 || !PORT_NAME.matcher(name).matches()) {
				throw new InvalidLeaderElectionPropertyException(property + "." + name, value,
						"is named '" + name + "', which is not a port name: at most 15 lower-case letters, digits "
								+ "and single '-' inside, one letter at least; it must be the name of the Service's "
								+ "port it serves");
			}
			ports.put(name, port(property + "." + name, value));
		});
		return ports;
	}

	private static int port(String property, String value) {
		try {
			int port = Integer.parseInt((value != null) ? value.trim() : "");
			if (port >= 1 && port <= 65535) {
				return port;
			}
		}
		catch (NumberFormatException ex) {
			// told below
		}
		throw new InvalidLeaderElectionPropertyException(property, value, "must be a port number from 1 to 65535");
	}

	/** The Pod this process runs in: POD_NAME, else HOSTNAME, which Kubernetes sets to the Pod's name. */
	private String podName() {
		for (String variable : List.of("POD_NAME", "HOSTNAME")) {
			String name = this.environment.apply(variable);
			if (name != null && !name.isBlank()) {
				return name.trim();
			}
		}
		return null;
	}

}
