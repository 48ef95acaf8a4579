package io.leaderelection.autoconfigure.routing;

import java.util.Map;

import io.leaderelection.engine.ElectionSettings;

/**
 * How one election is routed, resolved from the {@code routing} properties.
 *
 * @param election the election, a shard being one of its own
 * @param service the Service without selector whose EndpointSlice names the leader; {@code null}
 * for none
 * @param address this replica's address in the EndpointSlice; {@code null} without a Service
 * @param ports this replica's ports by name; empty for the web server's port, named {@code http}
 * @param podName the Pod this replica runs in, labelled and named as the endpoint's target;
 * {@code null} when unknown
 * @param podLabel whether to label that Pod {@code leaderelection.io/<election>}
 * @param prefix the prefix of the election's own routing properties, for messages
 */
record ElectionRouting(ElectionSettings election, String service, String address, Map<String, Integer> ports,
		String podName, boolean podLabel, String prefix) {

	/** The name of the port the web server's port is given when no ports are configured. */
	static final String WEB_SERVER_PORT_NAME = "http";

	ElectionRouting {
		ports = Map.copyOf(ports);
	}

}
