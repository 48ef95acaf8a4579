package io.leaderelection.controlplane;

import java.nio.file.Path;
import java.util.List;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/**
 * The sample's manifests applied to a namespace of the control plane with the real kubectl, as a
 * user applies them, and its replicas run as processes the way the Deployment runs them, each in a
 * Pod of its own, as the Deployment's ServiceAccount.
 */
final class SampleDeployment {

	private final ControlPlane controlPlane;

	private final TestNamespace namespace;

	private final String applied;

	private final Deployment deployment;

	private final Path kubeconfig;

	private final KubeletPods pods;

	private SampleDeployment(ControlPlane controlPlane, TestNamespace namespace, String applied) {
		this.controlPlane = controlPlane;
		this.namespace = namespace;
		this.applied = applied;
		this.deployment = controlPlane.admin()
			.apps()
			.deployments()
			.inNamespace(namespace.name())
			.withName("leader-election-sample")
			.get();
		String account = this.deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
		this.kubeconfig = controlPlane.writeKubeconfig(namespace.name() + ".kubeconfig", controlPlane.apiServer(),
				account, namespace.token(account), namespace.name());
		this.pods = new KubeletPods(controlPlane.admin(), namespace.name(), account);
	}

	/**
	 * Applies sample-app/{@code manifests} (k8s or k8s-for-life) to the namespace.
	 */
	static SampleDeployment apply(ControlPlane controlPlane, TestNamespace namespace, String manifests) {
		String applied = controlPlane.kubectl("apply", "-k", ModuleFiles.of("../sample-app/" + manifests).toString(), "-n",
				namespace.name());
		return new SampleDeployment(controlPlane, namespace, applied);
	}

	/** What kubectl printed of the objects it created. */
	String applied() {
		return this.applied;
	}

	/**
	 * Runs a replica in a Pod of the given name and address, which it creates first, Running and
	 * Ready.
	 * @param log where its output goes; {@code null} for this process's own output
	 * @param arguments further command-line arguments, e.g. shorter lease timings
	 */
	SampleProcess run(String podName, String podIp, Path log, List<String> arguments) {
		Pod pod = this.pods.running(podName, podIp);
		return SampleProcess.start(this.deployment, pod, this.kubeconfig, log, arguments);
	}

	/** Where a replica's output goes, in the control plane's directory. */
	Path log(String podName) {
		return this.controlPlane.directory().resolve(this.namespace.name() + "-" + podName + ".log");
	}

}
