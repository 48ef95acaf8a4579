package io.leaderelection.engine;

import io.leaderelection.store.ContainerInstance;
import io.leaderelection.store.ContainerInstance.ContainerReport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Pod's status proves of a container run: its end at its restartCount, or a later run; and
 * nothing of another Pod of the same name, of the run still running, or of a count lower than the
 * run's (a status older than the run's own).
 */
class ContainerInstanceTests {

	private static final ContainerInstance RUN = new ContainerInstance("a", "team-a", "pod-a", "uid-1", "app", 2);

	@Test
	void theRunTerminatedAtItsRestartCountEnded() {
		assertThat(RUN.endedBecause(new ContainerReport("uid-1", 2, true))).contains("terminated");
	}

	@Test
	void aLaterRunRunningOrEndedMeansThisOneEnded() {
		assertThat(RUN.endedBecause(new ContainerReport("uid-1", 3, false))).contains("restarted");
		assertThat(RUN.endedBecause(new ContainerReport("uid-1", 5, true))).contains("restarted");
	}

	@Test
	void theRunStillRunningProvesNothing() {
		assertThat(RUN.endedBecause(new ContainerReport("uid-1", 2, false))).isNull();
	}

	@Test
	void anEarlierRunsEndProvesNothingOfThisOne() {
		assertThat(RUN.endedBecause(new ContainerReport("uid-1", 1, true))).isNull();
	}

	@Test
	void anotherPodOfTheSameNameOrNoPodProvesNothing() {
		assertThat(RUN.endedBecause(new ContainerReport("uid-2", 0, true))).isNull();
		assertThat(RUN.endedBecause(new ContainerReport("uid-2", 7, false))).isNull();
		assertThat(RUN.endedBecause(null)).isNull();
	}

}
