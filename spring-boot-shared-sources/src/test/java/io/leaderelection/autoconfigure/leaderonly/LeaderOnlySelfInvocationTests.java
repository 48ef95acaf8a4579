package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Self-invocation: the documented limitation of {@code @LeaderOnly} (see its Javadoc), as of
 * {@code @Transactional}. A call a bean makes to its own method through {@code this} does not
 * pass through the proxy and is not gated; the same call through the bean's proxy is.
 */
class LeaderOnlySelfInvocationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@Test
	void documentedLimitationSelfInvocationThroughThisIsNotGatedOnAFollower() {
		Replicas.follower(server).withBean(Cleanup.class).run((context) -> {
			Replicas.awaitFollower(context, "default");
			Cleanup cleanup = context.getBean(Cleanup.class);
			// Documented limitation (LeaderOnly Javadoc): this.purge() bypasses the proxy, so the
			// leader-only body RUNS on a follower, and the interceptor never sees the call.
			cleanup.purgeViaThis();
			assertThat(cleanup.purged()).containsExactly("via this");
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
			assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
		});
	}

	@Test
	void selfInvocationThroughTheInjectedProxyIsGatedOnAFollower() {
		Replicas.follower(server).withBean(Cleanup.class).run((context) -> {
			Replicas.awaitFollower(context, "default");
			Cleanup cleanup = context.getBean(Cleanup.class);
			cleanup.purgeViaLazySelf();
			cleanup.purgeViaProvider();
			assertThat(cleanup.purged()).isEmpty();
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED))
				.isEqualTo(2);
		});
	}

	@Test
	void selfInvocationThroughTheInjectedProxyRunsOnTheLeader() {
		Replicas.leader(server).withBean(Cleanup.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Cleanup cleanup = context.getBean(Cleanup.class);
			cleanup.purgeViaLazySelf();
			cleanup.purgeViaProvider();
			cleanup.purgeViaThis();
			assertThat(cleanup.purged()).containsExactly("via lazy self", "via provider", "via this");
			// the call through this is not seen by the interceptor, on the leader either
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED))
				.isEqualTo(2);
		});
	}

	static class Cleanup {

		private final List<String> purged = new CopyOnWriteArrayList<>();

		private final ObjectProvider<Cleanup> provider;

		@Autowired
		@Lazy
		private Cleanup self;

		Cleanup(ObjectProvider<Cleanup> provider) {
			this.provider = provider;
		}

		@LeaderOnly
		public void purge(String how) {
			this.purged.add(how);
		}

		/** Not annotated; calls the leader-only method on itself, bypassing the proxy. */
		public void purgeViaThis() {
			this.purge("via this");
		}

		/** Not annotated; calls the leader-only method through a {@code @Lazy} self reference. */
		public void purgeViaLazySelf() {
			this.self.purge("via lazy self");
		}

		/** Not annotated; calls the leader-only method through the bean the context holds. */
		public void purgeViaProvider() {
			this.provider.getObject().purge("via provider");
		}

		public List<String> purged() {
			return this.purged;
		}

	}

}
