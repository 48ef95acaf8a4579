package io.leaderelection.controlplane;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the control plane of this JVM ({@link ControlPlane#shared()}) before a test class's
 * {@code @BeforeAll} methods, for tests outside this package that reach it through the
 * administrator's kubeconfig, which fabric8 reads from its system property {@code kubeconfig}
 * (the module's surefire sets it to that file): RealClusterIntegrationTest.
 */
public final class ControlPlaneExtension implements BeforeAllCallback {

	@Override
	public void beforeAll(ExtensionContext context) {
		Path kubeconfig = ControlPlane.shared().adminKubeconfig();
		String property = System.getProperty("kubeconfig");
		if (property == null || !Path.of(property).toAbsolutePath().normalize().equals(kubeconfig.normalize())) {
			throw new IllegalStateException(context.getDisplayName() + " runs against the control plane through "
					+ "fabric8's system property kubeconfig, which must name " + kubeconfig + " (the module's surefire "
					+ "sets it), but it is " + property);
		}
	}

}
