package io.leaderelection.aot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.WindowStatus;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.shedlock.ShedLockAutoConfiguration;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.DecoratingProxy;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter's auto-configuration processed ahead of time, then started from the generated code
 * alone, as {@code spring-boot:process-aot} and {@code -Dspring.aot.enabled=true} run an
 * application: {@code @LeaderOnly} gates calls through the proxy class generated at build time,
 * and processing registers what a native image needs for the gated beans.
 */
class LeaderElectionAotTests {

	private static final String NAMESPACE = "aot";

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** What conditions read: the same at build time and at run time, as in an application. */
	private static final String[] BUILD_PROPERTIES = { "leader.election.elections.orders.shards=2" };

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static AotProcessedContext processed;

	@BeforeAll
	static void processAheadOfTime() {
		processed = AotProcessedContext.process(ShippingConfiguration.class, LeaderElectionAutoConfiguration.class,
				BUILD_PROPERTIES);
	}

	@Test
	void leaderOnlyWorkRunsOnTheLeaderAndIsSkippedOnceItStepsDown() {
		run("aot-gate", (context) -> {
			LeaderElector elector = context.getBean(LeaderElector.class);
			await().atMost(WAIT).until(() -> elector.isLeader("default"));
			@SuppressWarnings("unchecked")
			Supplier<String> job = context.getBean("shippingJob", Supplier.class);
			assertThat(job.get()).isEqualTo("shipped");
			elector.stepDown("default");
			assertThat(elector.isLeader("default")).isFalse();
			assertThat(job.get()).isNull();
			// the release reaches the server: the generated context's client wrote it
			await().atMost(WAIT)
				.until(() -> server.lease(NAMESPACE, "aot-gate").getSpec().getHolderIdentity(),
						(holder) -> holder == null || holder.isEmpty());
		});
	}

	@Test
	void theContextIsStartedFromGeneratedCodeAndTheGateFromTheProxyClassGeneratedAtBuildTime() {
		assertThat(processed.generatedClassNames()).contains(
				"io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration__BeanDefinitions",
				"io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration__BeanDefinitions");
		run("aot-generated", (context) -> {
			Object job = context.getBean("shippingJob");
			assertThat(job.getClass().getName()).startsWith(ShippingJob.class.getName() + "$$SpringCGLIB$$");
			assertThat(processed.isGenerated(job.getClass())).isTrue();
		});
	}

	@Test
	void aMethodAndShedLocksLocksRunOncePerWindowFromGeneratedCode() {
		assertThat(processed.generatedClassNames())
			.contains("io.leaderelection.autoconfigure.shedlock.ShedLockAutoConfiguration__BeanDefinitions");
		run("aot-windows", (context) -> {
			LeaderElector elector = context.getBean(LeaderElector.class);
			await().atMost(WAIT).until(() -> elector.isLeader("default"));
			@SuppressWarnings("unchecked")
			Supplier<String> job = context.getBean("windowedJob", Supplier.class);
			assertThat(job.get()).isEqualTo("ran");
			assertThat(job.get()).as("within its window, read from a placeholder at start-up").isNull();
			LockProvider locks = context.getBean(LockProvider.class);
			LockConfiguration nightly = new LockConfiguration(ClockProvider.now(), "nightly", Duration.ofMinutes(1),
					Duration.ofMinutes(1));
			locks.lock(nightly).orElseThrow().unlock();
			assertThat(locks.lock(nightly)).isEmpty();
			assertThat(elector.windows("default")).extracting(WindowStatus::job)
				.containsExactlyInAnyOrder("windowedJob.get", "nightly");
		});
	}

	@Test
	void processingRegistersTheHintsOfGatedBeansAndTheStartersOwn() {
		RuntimeHints hints = processed.hints();
		String proxyClass = processed.generatedClassNames()
			.stream()
			.filter((name) -> name.startsWith(ShippingJob.class.getName() + "$$SpringCGLIB$$"))
			.findFirst()
			.orElseThrow();
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of(proxyClass))
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(ShippingJob.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Supplier.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies()
			.forInterfaces(Supplier.class, SpringProxy.class, Advised.class, DecoratingProxy.class)).accepts(hints);
		assertThat(BootLine.invokes(ReflectionUtils.findMethod(Order.class, "id"))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Unrelated.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).rejects(hints);
		// the registrars of META-INF/spring/aot.factories ran too
		assertThat(RuntimeHintsPredicates.reflection().onType(Lease.class)).accepts(hints);
	}

	/** Starts a replica from the generated code, campaigning for a released Lease it takes at once. */
	private static void run(String leaseName, Consumer<GenericApplicationContext> test) {
		server.createReleased(NAMESPACE, leaseName);
		String url;
		try (KubernetesClient client = server.newClient()) {
			url = client.getMasterUrl().toString();
		}
		List<String> properties = new ArrayList<>(List.of(BUILD_PROPERTIES));
		properties.addAll(List.of("test.api-server=" + url, "leader.election.namespace=" + NAMESPACE,
				"leader.election.lease-name=" + leaseName, "leader.election.identity=" + leaseName + "-replica",
				"leader.election.lease-duration=2s", "leader.election.renew-deadline=1s",
				"leader.election.retry-period=250ms", LeaderElectionTestProperties.CAMPAIGN_AT_START));
		processed.run(properties.toArray(String[]::new), test);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
			ShedLockAutoConfiguration.class })
	static class ShippingConfiguration {

		/** The test's server, as a property: the context has its own copy of this class, without the test's statics. */
		@Bean
		KubernetesClient kubernetesClient(@Value("${test.api-server}") String url) {
			return new KubernetesClientBuilder()
				.withConfig(new ConfigBuilder().withMasterUrl(url).withHttp2Disable(true).build())
				.build();
		}

		@Bean
		ShippingJob shippingJob() {
			return new ShippingJob();
		}

		@Bean
		OrderShipper orderShipper() {
			return new OrderShipper();
		}

		@Bean
		WindowedJob windowedJob() {
			return new WindowedJob();
		}

		@Bean
		Unrelated unrelated() {
			return new Unrelated();
		}

	}

	static class ShippingJob implements Supplier<String> {

		@Override
		@LeaderOnly
		public String get() {
			return "shipped";
		}

	}

	static class WindowedJob implements Supplier<String> {

		@Override
		@LeaderOnly(atMostEvery = "${jobs.window:1h}")
		public String get() {
			return "ran";
		}

	}

	static class OrderShipper {

		@LeaderOnly(value = "orders", key = "#order.id()")
		public void ship(Order order) {
		}

	}

	record Order(String id) {

	}

	static class Unrelated {

		public void work() {
		}

	}

}
