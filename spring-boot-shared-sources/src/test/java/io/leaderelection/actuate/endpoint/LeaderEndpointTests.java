package io.leaderelection.actuate.endpoint;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;
import io.leaderelection.StepDown;
import io.leaderelection.WindowStatus;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.actuate.endpoint.LeaderEndpoint.LeaderElectionsDescriptor;
import io.leaderelection.actuate.endpoint.LeaderEndpoint.ShardsDescriptor;
import io.leaderelection.actuate.endpoint.LeaderEndpoint.StepDownDescriptor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link LeaderEndpoint} and {@link LeaderEndpointWebExtension} on a user-supplied
 * elector; {@code LeaderActuatorIntegrationTests} runs them over HTTP on the library's engine.
 */
class LeaderEndpointTests {

	private final StaticLeaderElector elector = new StaticLeaderElector();

	private final LeaderEndpoint endpoint = new LeaderEndpoint(this.elector);

	@Test
	void electionsShowTheIdentityAndEveryElectionInOrder() {
		LeaderElectionsDescriptor elections = this.endpoint.elections();
		assertThat(elections.identity()).isEqualTo("me");
		assertThat(elections.elections()).containsExactly(
				entry("default", this.elector.status("default")),
				entry("billing", this.elector.status("billing")));
	}

	@Test
	void electionsWithoutShardsOrGroupsOrWindowedJobsHaveNone() {
		LeaderElectionsDescriptor elections = this.endpoint.elections();
		assertThat(elections.shards()).isEmpty();
		assertThat(elections.groups()).isEmpty();
		assertThat(elections.windows()).isEmpty();
	}

	@Test
	void jobsRunOncePerWindowAreListedUnderTheElectionTheyRunInAndItsShardsUnderItsName() {
		Map<String, LeaderStatus> statuses = new LinkedHashMap<>();
		statuses.put("default", this.elector.status("default"));
		for (int index = 0; index < 2; index++) {
			Shard shard = new Shard("orders", index, 2);
			statuses.put(shard.name(), new LeaderStatus(shard.name(), "team-a", shard.leaseName("orders-leader"), true,
					"me", null, null, null, 7L, null, null, LeaderStatus.LEASE_MODE, null, shard, null));
		}
		Instant start = StaticLeaderElector.ACQUIRED;
		WindowStatus report = new WindowStatus("orders-1-of-2", "report", "me", 7, start, start.plusSeconds(2),
				start.plusSeconds(60));
		LeaderElector elector = new StaticLeaderElector(statuses.values()) {

			@Override
			public List<WindowStatus> windows(String election) {
				return election.equals("orders-1-of-2") ? List.of(report) : super.windows(election);
			}

		};

		LeaderElectionsDescriptor elections = new LeaderEndpoint(elector).elections();

		assertThat(elections.windows()).containsExactly(entry("orders", List.of(report)));
	}

	@Test
	void shardsThatAreNotBalancedShowTheirCountAndTheShardsLedWithoutMembers() {
		Map<String, LeaderStatus> statuses = new LinkedHashMap<>();
		for (int index = 2; index >= 0; index--) {
			// out of order: the endpoint orders the shards by index
			Shard shard = new Shard("orders", index, 3);
			statuses.put(shard.name(), new LeaderStatus(shard.name(), "team-a", shard.leaseName("orders-leader"),
					index != 1, null, null, null, null, null, null, null, LeaderStatus.LEASE_MODE, null, shard, null));
		}
		LeaderElector elector = new StaticLeaderElector(statuses.values());

		LeaderElectionsDescriptor elections = new LeaderEndpoint(elector).elections();

		assertThat(elections.shards()).containsExactly(entry("orders", new ShardsDescriptor(3, List.of(0, 2), null)));
		assertThat(elections.groups()).isEmpty();
		assertThat(elections.elections()).isEqualTo(statuses);
	}

	@Test
	void oneElection() {
		assertThat(this.endpoint.election("billing")).isEqualTo(this.elector.status("billing"));
	}

	@Test
	void unknownElectionIsNull() {
		assertThat(this.endpoint.election("nope")).isNull();
	}

	@Test
	void stepDownAsksTheElectorAndAnswersTheStatusAndHowFarTheReleaseGot() {
		assertThat(this.endpoint.stepDown("default")).isEqualTo(new StepDownDescriptor(
				this.elector.status("default"), StepDown.Release.REQUESTED, List.of(), null));
		assertThat(this.elector.steppedDown()).containsExactly("default");
	}

	@Test
	void stepDownFromAnUnknownElectionDoesNothing() {
		assertThat(this.endpoint.stepDown("nope")).isNull();
		assertThat(this.elector.steppedDown()).isEmpty();
	}

	@Test
	void webStepDownFromAnUnknownElectionIsNotFound() {
		WebEndpointResponse<StepDownDescriptor> response = new LeaderEndpointWebExtension(this.endpoint)
			.stepDown("nope");
		assertThat(response.getStatus()).isEqualTo(404);
		assertThat(response.getBody()).isNull();
		assertThat(this.elector.steppedDown()).isEmpty();
	}

	@Test
	void webStepDownAnswersTheStatus() {
		WebEndpointResponse<StepDownDescriptor> response = new LeaderEndpointWebExtension(this.endpoint)
			.stepDown("default");
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getBody().status()).isEqualTo(this.elector.status("default"));
		assertThat(this.elector.steppedDown()).containsExactly("default");
	}

}
