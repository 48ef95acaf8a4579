package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @LeaderOnly} on a type that is not a lifecycle bean gates each of its public methods
 * but not {@code toString}, {@code equals} and {@code hashCode}; on an interface method it
 * gates the implementation. Through a JDK interface proxy and a CGLIB class proxy.
 */
class LeaderOnlyTypeAndInterfaceTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void typeLevelAnnotationGatesEveryPublicMethodOnAFollower(ProxyKind kind) {
		Replicas.follower(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(ReportsConfiguration.class)
			.run((context) -> {
				Replicas.awaitFollower(context, "default");
				ReportsApi reports = context.getBean(ReportsApi.class);
				kind.assertProxies(reports);
				assertThat(reports.generate("q1")).isNull();
				assertThat(reports.pages()).isZero();
				reports.publish();
				assertThat(context.getBean(Bodies.class).ran).isEmpty();
				assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED))
					.isEqualTo(3);
			});
	}

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void typeLevelAnnotationLeavesToStringEqualsAndHashCodeAlone(ProxyKind kind) {
		Replicas.follower(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(ReportsConfiguration.class)
			.run((context) -> {
				Replicas.awaitFollower(context, "default");
				ReportsApi reports = context.getBean(ReportsApi.class);
				kind.assertProxies(reports);
				// overridden by the bean: a gated toString() would return null on a follower
				assertThat(reports.toString()).isEqualTo("Reports");
				assertThat(reports.equals(reports)).isTrue();
				assertThat(reports.hashCode()).isEqualTo(reports.hashCode());
				LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
				assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
			});
	}

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void typeLevelAnnotationRunsEveryPublicMethodOnTheLeader(ProxyKind kind) {
		Replicas.leader(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(ReportsConfiguration.class)
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				ReportsApi reports = context.getBean(ReportsApi.class);
				kind.assertProxies(reports);
				assertThat(reports.generate("q1")).isEqualTo("report q1");
				assertThat(reports.pages()).isEqualTo(12);
				reports.publish();
				assertThat(context.getBean(Bodies.class).ran).containsExactly("generate", "pages", "publish");
				assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED))
					.isEqualTo(3);
			});
	}

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void annotationOnAnInterfaceMethodGatesItsImplementationOnAFollower(ProxyKind kind) {
		Replicas.follower(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(LedgerConfiguration.class)
			.run((context) -> {
				Replicas.awaitFollower(context, "default");
				Ledger ledger = context.getBean(Ledger.class);
				kind.assertProxies(ledger);
				assertThat(ledger.post("coffee")).isNull();
				// not annotated: runs on every replica
				assertThat(ledger.entries()).isEmpty();
				assertThat(context.getBean(Bodies.class).ran).containsExactly("entries");
				LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
				assertThat(invocations.count("default", Outcome.SKIPPED)).isOne();
				assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
			});
	}

	@ParameterizedTest
	@EnumSource(ProxyKind.class)
	void annotationOnAnInterfaceMethodRunsItsImplementationOnTheLeader(ProxyKind kind) {
		Replicas.leader(server)
			.withPropertyValues(kind.properties())
			.withUserConfiguration(LedgerConfiguration.class)
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				Ledger ledger = context.getBean(Ledger.class);
				kind.assertProxies(ledger);
				assertThat(ledger.post("coffee")).isEqualTo("posted coffee");
				assertThat(ledger.entries()).containsExactly("coffee");
				assertThat(context.getBean(Bodies.class).ran).containsExactly("post", "entries");
				assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED))
					.isOne();
			});
	}

	/** The bodies that ran, in order. */
	static class Bodies {

		final List<String> ran = new CopyOnWriteArrayList<>();

	}

	@Configuration(proxyBeanMethods = false)
	static class ReportsConfiguration {

		@Bean
		Bodies bodies() {
			return new Bodies();
		}

		@Bean
		ReportsApi reports(Bodies bodies) {
			return new Reports(bodies);
		}

	}

	interface ReportsApi {

		String generate(String quarter);

		int pages();

		void publish();

	}

	@LeaderOnly
	static class Reports implements ReportsApi {

		private final Bodies bodies;

		Reports(Bodies bodies) {
			this.bodies = bodies;
		}

		@Override
		public String generate(String quarter) {
			this.bodies.ran.add("generate");
			return "report " + quarter;
		}

		@Override
		public int pages() {
			this.bodies.ran.add("pages");
			return 12;
		}

		@Override
		public void publish() {
			this.bodies.ran.add("publish");
		}

		@Override
		public String toString() {
			return "Reports";
		}

		@Override
		public boolean equals(Object other) {
			return other == this;
		}

		@Override
		public int hashCode() {
			return 7;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LedgerConfiguration {

		@Bean
		Bodies bodies() {
			return new Bodies();
		}

		@Bean
		Ledger ledger(Bodies bodies) {
			return new LedgerBean(bodies);
		}

	}

	interface Ledger {

		@LeaderOnly
		String post(String entry);

		List<String> entries();

	}

	/** Not annotated itself: the annotation is on the interface method it implements. */
	static class LedgerBean implements Ledger {

		private final Bodies bodies;

		private final List<String> entries = new CopyOnWriteArrayList<>();

		LedgerBean(Bodies bodies) {
			this.bodies = bodies;
		}

		@Override
		public String post(String entry) {
			this.bodies.ran.add("post");
			this.entries.add(entry);
			return "posted " + entry;
		}

		@Override
		public List<String> entries() {
			this.bodies.ran.add("entries");
			return List.copyOf(this.entries);
		}

	}

}
