package io.leaderelection.test;

import io.leaderelection.LeaderElector;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.test.OrdersApplication.OrdersController;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;

/** A slice test of an application with the starter and the test support: no election in it, not a word of one. */
@WebMvcTest(OrdersController.class)
@ExtendWith(OutputCaptureExtension.class)
class SliceTests {

	@Autowired
	ApplicationContext context;

	@Autowired
	MockMvc mvc;

	@Test
	void aWebSliceHasNoElectorAndLogsNothingOfLeaderElection(CapturedOutput output) throws Exception {
		this.mvc.perform(get("/orders")).andExpect(content().string("orders"));
		assertThat(this.context.getBeanNamesForType(LeaderElector.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(LeaderElectionControl.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(InMemoryLeaseStores.class)).isEmpty();
		// the application's own package is io.leaderelection.test: what must not be heard is the elector
		assertThat(output.getAll()).doesNotContain("io.leaderelection.engine", "io.leaderelection.autoconfigure",
				"io.leaderelection.kubernetes");
	}

}
