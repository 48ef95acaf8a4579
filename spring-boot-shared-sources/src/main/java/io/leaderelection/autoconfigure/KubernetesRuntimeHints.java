package io.leaderelection.autoconfigure;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Runtime hints for the fabric8 client and the Kubernetes objects the elector reads and writes.
 */
class KubernetesRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * The objects Jackson binds: Leases (one, a list from the informer that counts the members of
	 * a group, a watch event); the Events recorded on them, whose {@code eventTime} is a
	 * {@link MicroTime}; the owner Pod and its Node that for-life mode reads; the ConfigMap a
	 * migration takes part in the older election through; the EndpointSlice that routes to the
	 * leader and the Service it belongs to; the SelfSubjectAccessReviews of the permission check at
	 * start; the Status of a
	 * refused request and the DeleteOptions of a release; and kubeconfig, which fabric8 reads when
	 * the client is built from {@code KUBECONFIG} or {@code ~/.kube/config}. Their fields, nested
	 * objects and Jackson (de)serializers are found from these.
	 */
	private static final Class<?>[] BOUND_TYPES = { Lease.class, LeaseList.class, WatchEvent.class, Event.class,
			EventList.class, MicroTime.class, Pod.class, Node.class, ConfigMap.class, EndpointSlice.class, Service.class,
			SelfSubjectAccessReview.class, Status.class, DeleteOptions.class,
			io.fabric8.kubernetes.api.model.Config.class };

	/**
	 * The builders of the objects the client's DSL handles: fabric8 looks each one up by name,
	 * the resource's class name plus {@code Builder}, and calls its constructor reflectively.
	 */
	private static final Class<?>[] DSL_BUILDERS = { LeaseBuilder.class, EventBuilder.class };

	/** {@code KubernetesClientBuilder} loads the client by this name and calls its constructor. */
	private static final String CLIENT_IMPLEMENTATION = "io.fabric8.kubernetes.client.impl.KubernetesClientImpl";

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), BOUND_TYPES);
		for (Class<?> builder : DSL_BUILDERS) {
			hints.reflection().registerType(builder, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
		}
		hints.reflection()
			.registerTypeIfPresent(classLoader, CLIENT_IMPLEMENTATION, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
	}

}
