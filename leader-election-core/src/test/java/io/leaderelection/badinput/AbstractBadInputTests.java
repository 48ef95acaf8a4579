package io.leaderelection.badinput;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.kubernetes.MockApiServer;
import org.junit.jupiter.api.AfterEach;

/**
 * What each bad-input test has: an API server of its own, kubectl's client on it, and the
 * elector the test starts, all closed after the test.
 */
abstract class AbstractBadInputTests {

	final MockApiServer server = MockApiServer.start();

	final KubernetesClient kubectl = this.server.client("kubectl");

	ElectorUnderTest elector;

	@AfterEach
	void stop() throws InterruptedException {
		if (this.elector != null) {
			this.elector.close();
		}
		this.kubectl.close();
		this.server.close();
	}

}
