package io.leaderelection.chaos;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.kubernetes.MockApiServer;
import io.leaderelection.kubernetes.MockApiServer.LeaseRequestListener;
import io.leaderelection.kubernetes.MockApiServer.LeaseWriteListener;

/**
 * The API server a chaos run talks to: fabric8's mock server ({@link ChaosApiServer}), or a real
 * control plane. Replicas reach it through their own links; the server tells the run of every
 * version of a Lease it stores and of every request about a Lease it answers, naming the client,
 * through the listeners of the mock ({@link MockApiServer}), which a real control plane's server
 * takes too.
 */
public interface ChaosServer extends AutoCloseable {

	/** The loopback port replicas' links connect to. */
	int port();

	/**
	 * The configuration of a replica's client, talking to the server through the given loopback
	 * port (its link's), known to the server by the given name.
	 */
	ConfigBuilder config(int port, String clientName);

	/** A client that talks to the server directly, not through any replica's link. */
	KubernetesClient client(String clientName);

	/**
	 * From now on, tells the listener of every version of a Lease the server stores and of every
	 * deletion, in the order they are stored.
	 */
	void onLeaseWritten(LeaseWriteListener listener);

	/** From now on, tells the listener of every request about a Lease the server answered. */
	void onLeaseRequest(LeaseRequestListener listener);

	/** Stops serving, as on a crash of the API server: connections end, new ones are refused. */
	void stop();

	/** Serves again on the same port, with the objects stored before the stop. */
	void restart();

	/**
	 * From now on, answers every request of the named client with a 500 instead of serving it,
	 * until withdrawn: for a server that can answer in place of the API server's own logic.
	 * @return what withdraws it
	 */
	Runnable failing(String clientName);

	@Override
	void close();

}
