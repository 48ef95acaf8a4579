package io.leaderelection.aot;

import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.MicroTimeSerDes;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Preconditions;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewSpec;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints the starter registers through {@code META-INF/spring/aot.factories}, as
 * Spring loads them while it processes an application ahead of time: what a native image of an
 * application on the starter reaches by reflection.
 */
class LeaderElectionRuntimeHintsTests {

	private final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

	private final RuntimeHints hints = starterHints();

	@Test
	void theStarterListsOneRegistrarPerConcernInAotFactories() {
		List<String> registrars = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.stream()
			.map((registrar) -> registrar.getClass().getName())
			.filter((name) -> name.startsWith("io.leaderelection."))
			.toList();
		assertThat(registrars).containsExactlyInAnyOrder("io.leaderelection.autoconfigure.KubernetesRuntimeHints",
				"io.leaderelection.autoconfigure.LeaderElectionPropertiesRuntimeHints",
				"io.leaderelection.actuate.health.LeaderElectionHealthRuntimeHints");
	}

	@Test
	void thePropertiesAndTheirNestedTypesCanBeBound() throws Exception {
		assertThat(this.reflection.onType(LeaderElectionProperties.class)).accepts(this.hints);
		assertThat(BootLine.invokes(LeaderElectionProperties.class.getMethod("setLeaseDuration", Duration.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaderElectionProperties.class.getMethod("setMode",
				LeaderElectionProperties.Mode.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaderElectionProperties.Election.class.getMethod("setShards", int.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaderElectionProperties.ForLife.class.getMethod("setNotReadyNodeTakeover",
				Duration.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaderElectionProperties.Events.class.getMethod("setEnabled", boolean.class)))
			.accepts(this.hints);
	}

	@Test
	void theLeaseIsReadAndWrittenFieldByFieldUnknownFieldsIncluded() throws Exception {
		assertThat(this.reflection.onType(Lease.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaseSpec.class.getMethod("setHolderIdentity", String.class))).accepts(this.hints);
		assertThat(BootLine.invokes(LeaseSpec.class.getMethod("getRenewTime"))).accepts(this.hints);
		assertThat(BootLine.invokes(LeaseSpec.class.getMethod("setPreferredHolder", String.class)))
			.accepts(this.hints);
		// a field this model does not know is kept through the any-setter, and written back
		assertThat(BootLine.invokes(LeaseSpec.class.getMethod("setAdditionalProperty", String.class, Object.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(LeaseSpec.class.getMethod("getAdditionalProperties"))).accepts(this.hints);
		assertThat(BootLine.invokes(ObjectMeta.class.getMethod("setResourceVersion", String.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(OwnerReference.class.getMethod("getUid"))).accepts(this.hints);
		assertThat(this.reflection.onType(LeaseList.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
			.accepts(this.hints);
		assertThat(BootLine.invokes(WatchEvent.class.getMethod("getObject"))).accepts(this.hints);
		assertThat(this.reflection.onType(LeaseBuilder.class).withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS))
			.accepts(this.hints);
	}

	@Test
	void eventsAreWrittenWithTheirMicroTime() throws Exception {
		assertThat(this.reflection.onType(Event.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
			.accepts(this.hints);
		assertThat(this.reflection.onType(EventList.class)).accepts(this.hints);
		assertThat(BootLine.invokes(Event.class.getMethod("getEventTime"))).accepts(this.hints);
		assertThat(BootLine.invokes(MicroTime.class.getMethod("getTime"))).accepts(this.hints);
		assertThat(this.reflection.onType(MicroTimeSerDes.Deserializer.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
		assertThat(this.reflection.onType(MicroTimeSerDes.Serializer.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
	}

	@Test
	void forLifeModeReadsTheOwnerPodAndItsNode() throws Exception {
		assertThat(this.reflection.onType(Pod.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
			.accepts(this.hints);
		assertThat(BootLine.invokes(PodStatus.class.getMethod("getPhase"))).accepts(this.hints);
		assertThat(BootLine.invokes(PodStatus.class.getMethod("setConditions", List.class))).accepts(this.hints);
		assertThat(BootLine.invokes(PodCondition.class.getMethod("getReason"))).accepts(this.hints);
		assertThat(BootLine.invokes(PodSpec.class.getMethod("getNodeName"))).accepts(this.hints);
		assertThat(BootLine.invokes(ObjectMeta.class.getMethod("getDeletionTimestamp"))).accepts(this.hints);
		assertThat(BootLine.invokes(NodeStatus.class.getMethod("setConditions", List.class))).accepts(this.hints);
		assertThat(BootLine.invokes(NodeCondition.class.getMethod("getStatus"))).accepts(this.hints);
	}

	@Test
	void thePermissionCheckWritesReviewsAndReadsTheirVerdict() throws Exception {
		assertThat(BootLine.invokes(SelfSubjectAccessReviewSpec.class.getMethod("getResourceAttributes")))
			.accepts(this.hints);
		assertThat(BootLine.invokes(ResourceAttributes.class.getMethod("getVerb"))).accepts(this.hints);
		assertThat(BootLine.invokes(SubjectAccessReviewStatus.class.getMethod("setAllowed", Boolean.class)))
			.accepts(this.hints);
	}

	@Test
	void refusalsAndReleasesAreReadAndWritten() throws Exception {
		assertThat(BootLine.invokes(Status.class.getMethod("getMessage"))).accepts(this.hints);
		assertThat(BootLine.invokes(DeleteOptions.class.getMethod("setPreconditions", Preconditions.class)))
			.accepts(this.hints);
		assertThat(BootLine.invokes(Preconditions.class.getMethod("setResourceVersion", String.class)))
			.accepts(this.hints);
	}

	@Test
	void theClientBuiltFromFabric8sOwnConfigurationCanBeCreated() throws Exception {
		assertThat(this.reflection.onType(TypeReference.of("io.fabric8.kubernetes.client.impl.KubernetesClientImpl"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(this.hints);
		assertThat(BootLine.invokes(io.fabric8.kubernetes.api.model.Config.class.getMethod("getClusters")))
			.accepts(this.hints);
	}

	@Test
	void healthDetailsShowShardsAndGroupsAsTheyAre() throws Exception {
		assertThat(BootLine.invokes(Shard.class.getMethod("index"))).accepts(this.hints);
		assertThat(BootLine.invokes(LeaderStatus.Group.class.getMethod("members"))).accepts(this.hints);
	}

	/** Every hint the starter's registrars give, and none from other libraries. */
	private static RuntimeHints starterHints() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.stream()
			.filter((registrar) -> registrar.getClass().getName().startsWith("io.leaderelection."))
			.forEach((registrar) -> registrar.registerHints(hints, LeaderElectionRuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

}
