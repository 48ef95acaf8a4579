package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HarnessArgumentsTests {

	@Test
	void pairsAndQuickInOneArgumentOrSeveral() {
		HarnessArguments arguments = HarnessArguments.parse(new String[] { " trials=3  quick", "only=a,b" }, "trials, only");
		assertThat(arguments.quick()).isTrue();
		assertThat(arguments.integer("trials", 20, 5)).isEqualTo(3);
		assertThat(arguments.list("only", "x")).containsExactly("a", "b");
	}

	@Test
	void defaultsOfARunOfRecordOrOfAQuickTrial() {
		HarnessArguments record = HarnessArguments.parse(new String[0], "");
		HarnessArguments quick = HarnessArguments.parse(new String[] { "quick" }, "");
		assertThat(record.integer("trials", 20, 3)).isEqualTo(20);
		assertThat(quick.integer("trials", 20, 3)).isEqualTo(3);
		assertThat(record.seconds("window", 60, 10)).isEqualTo(Duration.ofSeconds(60));
		assertThat(record.timings()).isEqualTo(Timings.DEFAULT);
		assertThat(quick.timings()).hasToString("2s/1s/250ms");
		assertThat(record.list("only", "a,b")).isEqualTo(List.of("a", "b"));
	}

	@Test
	void anArgumentThatIsNeitherQuickNorAPairIsRefusedNamingTheKeys() {
		assertThatIllegalArgumentException().isThrownBy(() -> HarnessArguments.parse(new String[] { "fast" }, "trials"))
			.withMessageContaining("fast")
			.withMessageContaining("trials");
	}

	@Test
	void timingsInSecondsOrMilliseconds() {
		Timings timings = Timings.parse("1.5s/1s/250ms");
		assertThat(timings.leaseDuration()).isEqualTo(Duration.ofMillis(1500));
		assertThat(timings.retryPeriod()).isEqualTo(Duration.ofMillis(250));
		assertThat(timings).hasToString("1500ms/1s/250ms");
		assertThatIllegalArgumentException().isThrownBy(() -> Timings.parse("15s/10s"));
		assertThatIllegalArgumentException().isThrownBy(() -> Timings.parse("15m/10s/2s"));
	}

}
