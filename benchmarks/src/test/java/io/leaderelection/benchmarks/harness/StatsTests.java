package io.leaderelection.benchmarks.harness;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatsTests {

	private final Stats twenty = new Stats(LongStream.rangeClosed(1, 20).map((value) -> 21 - value).boxed().toList());

	@Test
	void percentilesAreByNearestRank() {
		assertThat(this.twenty.percentile(50)).isEqualTo(10);
		assertThat(this.twenty.percentile(95)).isEqualTo(19);
		assertThat(this.twenty.percentile(90)).isEqualTo(18);
	}

	@Test
	void p99OfFewerThanAHundredValuesIsTheMaximum() {
		assertThat(this.twenty.percentile(99)).isEqualTo(20).isEqualTo(this.twenty.max());
	}

	@Test
	void minMaxAndCountOfAnUnsortedSample() {
		Stats stats = new Stats(List.of(5L, -3L, 9L));
		assertThat(stats.min()).isEqualTo(-3);
		assertThat(stats.max()).isEqualTo(9);
		assertThat(stats.count()).isEqualTo(3);
		assertThat(stats.percentile(1)).isEqualTo(-3);
	}

}
