package io.leaderelection.integration;

import io.leaderelection.controlplane.ControlPlaneExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RealClusterIntegrationTest} as it is, against the control plane of this module
 * (DESIGN.md, section 6): the module's surefire names the control plane's administrator
 * kubeconfig in fabric8's system property {@code kubeconfig}, which the test and fabric8 read
 * before {@code KUBECONFIG}, and {@link ControlPlaneExtension} starts the control plane before
 * the test's {@code @BeforeAll} creates its namespace there.
 */
@ExtendWith(ControlPlaneExtension.class)
class RealClusterIntegrationOnControlPlaneTests extends RealClusterIntegrationTest {

}
