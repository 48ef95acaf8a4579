package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a {@code @LeaderOnly} method returns on a follower, for every kind of return type, and
 * that its body runs on the leader; through a JDK interface proxy and a CGLIB class proxy.
 */
class LeaderOnlyReturnTypesTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void onAFollowerNoBodyRunsAndEachReturnTypeGetsItsEmptyValue(ProxyKind kind) {
		Replicas.follower(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(WorkConfiguration.class)
			.run((context) -> {
				Replicas.awaitFollower(context, "default");
				Work work = context.getBean(Work.class);
				kind.assertProxies(work);
				work.run();
				assertThat(work.optional()).isEmpty();
				CompletableFuture<String> future = work.future();
				assertThat(future).isCompletedWithValue(null);
				CompletionStage<String> stage = work.stage();
				assertThat(stage).isNotNull();
				assertThat(stage.toCompletableFuture()).isCompletedWithValue(null);
				assertThat(work.string()).isNull();
				assertThat(work.list()).isNull();
				assertThat(work.intValue()).isZero();
				assertThat(work.longValue()).isZero();
				assertThat(work.booleanValue()).isFalse();
				assertThat(work.doubleValue()).isZero();
				assertThatExceptionOfType(NotLeaderException.class).isThrownBy(work::throwing)
					.withMessage("Not the leader of election 'default'; current holder: " + Replicas.OTHER_HOLDER)
					.satisfies((ex) -> {
						assertThat(ex.getElection()).isEqualTo("default");
						assertThat(ex.getHolderIdentity()).isEqualTo(Replicas.OTHER_HOLDER);
					});
				assertThat(context.getBean(Bodies.class).ran).isEmpty();
				LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.SKIPPED)).isEqualTo(11);
				assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
			});
	}

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void onTheLeaderEveryBodyRunsAndReturnsItsValue(ProxyKind kind) {
		Replicas.leader(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(WorkConfiguration.class)
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				Work work = context.getBean(Work.class);
				kind.assertProxies(work);
				work.run();
				assertThat(work.optional()).contains("optional");
				assertThat(work.future()).isCompletedWithValue("future");
				assertThat(work.stage().toCompletableFuture()).isCompletedWithValue("stage");
				assertThat(work.string()).isEqualTo("string");
				assertThat(work.list()).containsExactly("list");
				assertThat(work.intValue()).isEqualTo(42);
				assertThat(work.longValue()).isEqualTo(42L);
				assertThat(work.booleanValue()).isTrue();
				assertThat(work.doubleValue()).isEqualTo(4.2);
				assertThat(work.throwing()).isEqualTo("throwing");
				assertThat(context.getBean(Bodies.class).ran).containsExactly("run", "optional", "future", "stage",
						"string", "list", "intValue", "longValue", "booleanValue", "doubleValue", "throwing");
				LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.EXECUTED)).isEqualTo(11);
				assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class WorkConfiguration {

		@Bean
		Bodies bodies() {
			return new Bodies();
		}

		/** Exposed as its interface, so that a JDK proxy can stand for it. */
		@Bean
		Work work(Bodies bodies) {
			return new WorkBean(bodies);
		}

	}

	/** The bodies that ran, in order. */
	static class Bodies {

		final List<String> ran = new CopyOnWriteArrayList<>();

	}

	interface Work {

		void run();

		Optional<String> optional();

		CompletableFuture<String> future();

		CompletionStage<String> stage();

		String string();

		List<String> list();

		int intValue();

		long longValue();

		boolean booleanValue();

		double doubleValue();

		String throwing();

	}

	static class WorkBean implements Work {

		private final Bodies bodies;

		WorkBean(Bodies bodies) {
			this.bodies = bodies;
		}

		@Override
		@LeaderOnly
		public void run() {
			this.bodies.ran.add("run");
		}

		@Override
		@LeaderOnly
		public Optional<String> optional() {
			this.bodies.ran.add("optional");
			return Optional.of("optional");
		}

		@Override
		@LeaderOnly
		public CompletableFuture<String> future() {
			this.bodies.ran.add("future");
			return CompletableFuture.completedFuture("future");
		}

		@Override
		@LeaderOnly
		public CompletionStage<String> stage() {
			this.bodies.ran.add("stage");
			return CompletableFuture.completedStage("stage");
		}

		@Override
		@LeaderOnly
		public String string() {
			this.bodies.ran.add("string");
			return "string";
		}

		@Override
		@LeaderOnly
		public List<String> list() {
			this.bodies.ran.add("list");
			return List.of("list");
		}

		@Override
		@LeaderOnly
		public int intValue() {
			this.bodies.ran.add("intValue");
			return 42;
		}

		@Override
		@LeaderOnly
		public long longValue() {
			this.bodies.ran.add("longValue");
			return 42L;
		}

		@Override
		@LeaderOnly
		public boolean booleanValue() {
			this.bodies.ran.add("booleanValue");
			return true;
		}

		@Override
		@LeaderOnly
		public double doubleValue() {
			this.bodies.ran.add("doubleValue");
			return 4.2;
		}

		@Override
		@LeaderOnly(throwIfNotLeader = true)
		public String throwing() {
			this.bodies.ran.add("throwing");
			return "throwing";
		}

	}

}
