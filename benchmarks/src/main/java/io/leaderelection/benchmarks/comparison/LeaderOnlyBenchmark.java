package io.leaderelection.benchmarks.comparison;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.OurImplementation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The cost of {@code @LeaderOnly} and of {@code isLeader()}: a minimal Spring context with the
 * auto-configuration and a {@code KubernetesClient} on an in-process CRUD mock server, on a
 * replica that leads ({@code leader}) and on one that follows while another identity holds the
 * Lease ({@code follower}). The same method body is called on a bean without the annotation
 * (not proxied) and on a bean whose method carries {@code @LeaderOnly} (proxied by the
 * auto-configuration).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
public class LeaderOnlyBenchmark {

	@Param({ "leader", "follower" })
	public String role;

	private ApiServer server;

	private KubernetesClient client;

	private ConfigurableApplicationContext context;

	private LeaderElector elector;

	private PlainWork plain;

	private GatedWork gated;

	private long input;

	@Setup(Level.Trial)
	public void startContext() throws InterruptedException {
		this.server = ApiServer.start();
		this.client = OurImplementation.client(this.server.port(), "jmh-" + this.role);
		boolean leader = this.role.equals("leader");
		if (!leader) {
			Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
			this.client.leases()
				.inNamespace(ApiServer.NAMESPACE)
				.resource(new LeaseBuilder().withNewMetadata()
					.withName("jmh-leader")
					.withNamespace(ApiServer.NAMESPACE)
					.endMetadata()
					.withNewSpec()
					.withHolderIdentity("another-replica")
					.withLeaseDurationSeconds(3600)
					.withAcquireTime(now.atZone(ZoneOffset.UTC))
					.withRenewTime(now.atZone(ZoneOffset.UTC))
					.withLeaseTransitions(0)
					.endSpec()
					.build())
				.create();
		}
		this.context = new SpringApplicationBuilder(JmhApplication.class).web(WebApplicationType.NONE)
			.properties(Map.of("spring.application.name", "jmh", "leader.election.namespace", ApiServer.NAMESPACE,
					"leader.election.identity", "jmh-" + this.role, "spring.main.banner-mode", "off"))
			.initializers((context) -> context.getBeanFactory().registerSingleton("kubernetesClient", this.client))
			.run();
		this.elector = this.context.getBean(LeaderElector.class);
		this.plain = this.context.getBean(PlainWork.class);
		this.gated = this.context.getBean(GatedWork.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (leader ? !this.elector.isLeader()
				: !"another-replica".equals(this.elector.status(LeaderElector.DEFAULT_ELECTION).holderIdentity())) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("the " + this.role + " did not settle within 30 s");
			}
			Thread.sleep(20);
		}
		if (this.elector.isLeader() != leader || this.gated.work(1) != (leader ? 2 : 0)) {
			throw new IllegalStateException("the " + this.role + " is not in the expected state");
		}
	}

	@TearDown(Level.Trial)
	public void stopContext() {
		this.context.close();
		this.client.close();
		this.server.close();
	}

	/** The method on a bean without the annotation: a direct call. */
	@Benchmark
	public long unannotated() {
		return this.plain.work(this.input++);
	}

	/** The same method with {@code @LeaderOnly}: through the proxy and the gate. */
	@Benchmark
	public long leaderOnly() {
		return this.gated.work(this.input++);
	}

	/** The elector's gate alone. */
	@Benchmark
	public boolean isLeader() {
		return this.elector.isLeader();
	}

	public static class PlainWork {

		public long work(long value) {
			return value + 1;
		}

	}

	public static class GatedWork {

		@LeaderOnly
		public long work(long value) {
			return value + 1;
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class })
	static class JmhApplication {

		@Bean
		PlainWork plainWork() {
			return new PlainWork();
		}

		@Bean
		GatedWork gatedWork() {
			return new GatedWork();
		}

	}

}
