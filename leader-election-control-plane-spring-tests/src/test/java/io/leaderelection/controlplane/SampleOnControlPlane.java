package io.leaderelection.controlplane;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the sample on a real local control plane: starts etcd, kube-apiserver and
 * kube-controller-manager (building them first if they are missing), applies sample-app/k8s with
 * kubectl, and runs replicas of the sample's jar as its Deployment runs them, their output here,
 * until stopped with Ctrl-C. docs/local-api-server.md gives the command.
 */
public final class SampleOnControlPlane {

	private SampleOnControlPlane() {
	}

	/**
	 * @param args the number of replicas (2 if none), then arguments for every replica, e.g.
	 * {@code --leader.election.lease-duration=5s}
	 */
	public static void main(String[] args) throws InterruptedException {
		int replicas = (args.length > 0) ? Integer.parseInt(args[0]) : 2;
		List<String> arguments = (args.length > 1) ? List.of(args).subList(1, args.length) : List.of();
		ControlPlane controlPlane = ControlPlane.shared();
		TestNamespace namespace = controlPlane.namespace("sample");
		SampleDeployment sample = SampleDeployment.apply(controlPlane, namespace, "k8s");
		System.out.print(sample.applied());
		System.out.printf("%nThe sample runs in namespace %s; look with%n  %s --kubeconfig %s -n %s get leases,pods,endpointslices%n%n",
				namespace.name(), controlPlane.kubectlBinary(), controlPlane.adminKubeconfig(),
				namespace.name());
		List<SampleProcess> processes = new ArrayList<>();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> processes.forEach(SampleProcess::stopGracefully)));
		for (int replica = 0; replica < replicas; replica++) {
			processes.add(sample.run("sample-" + replica, "10.244.0." + (10 + replica), null, arguments));
		}
		for (SampleProcess process : processes) {
			process.waitFor();
		}
	}

}
