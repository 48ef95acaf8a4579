package io.leaderelection.benchmarks.harness;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FiguresTests {

	@Test
	void durationsInSecondsWholeOrTenthsOfMilliseconds() {
		assertThat(Figures.duration(1_234_000_000L)).isEqualTo("1.23 s");
		assertThat(Figures.duration(12_400_000L)).isEqualTo("12 ms");
		assertThat(Figures.duration(1_260_000L)).isEqualTo("1.3 ms");
		assertThat(Figures.duration(-25_000_000L)).isEqualTo("-25 ms");
	}

	@Test
	void percentileOfNoValuesIsNone() {
		assertThat(Figures.percentile(List.of(), 50)).isEqualTo(Figures.NONE);
		assertThat(Figures.percentile(List.of(3_000_000L, 1_000_000L, 2_000_000L), 50)).isEqualTo("2.0 ms");
	}

	@Test
	void ratios() {
		assertThat(Figures.ratio(1, 4)).isEqualTo("0.25");
		assertThat(Figures.ratio(40, 3)).isEqualTo("13");
		assertThat(Figures.ratio(1, 200)).isEqualTo("0.0050");
		assertThat(Figures.ratio(0, 5)).isEqualTo("0");
		assertThat(Figures.ratio(1, 0)).isEqualTo(Figures.NONE);
		assertThat(Figures.ratio(-1, 2)).isEqualTo(Figures.NONE);
		assertThat(Figures.ratio(Double.NaN, 2)).isEqualTo(Figures.NONE);
	}

	@Test
	void rates() {
		assertThat(Figures.rate(0)).isEqualTo("0");
		assertThat(Figures.rate(0.5)).isEqualTo("0.500");
		assertThat(Figures.rate(12.6)).isEqualTo("13");
	}

}
