package io.leaderelection.test;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.leaderelection.LeaderElector;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.test.OrdersApplication.OrdersController;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;

/** A slice test of an application with the starter and the test support: no election in it, not a word of one. */
@WebMvcTest(OrdersController.class)
class SliceTests {

	/** Everything the library logs, from before this class's context starts. */
	private static final ListAppender<ILoggingEvent> logged = listen();

	@Autowired
	ApplicationContext context;

	@Autowired
	MockMvc mvc;

	@AfterAll
	static void stopListening() {
		library().detachAppender(logged);
	}

	@Test
	void aWebSliceHasNoElectorAndLogsNothingOfLeaderElection() throws Exception {
		this.mvc.perform(get("/orders")).andExpect(content().string("orders"));
		assertThat(this.context.getBeanNamesForType(LeaderElector.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(LeaderElectionControl.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(InMemoryLeaseStores.class)).isEmpty();
		// the application's own package is io.leaderelection.test: what must not be heard is the library
		assertThat(logged.list).extracting(ILoggingEvent::getLoggerName)
			.noneMatch((name) -> !name.startsWith("io.leaderelection.test"));
	}

	private static ListAppender<ILoggingEvent> listen() {
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		library().addAppender(appender);
		return appender;
	}

	private static Logger library() {
		return (Logger) LoggerFactory.getLogger("io.leaderelection");
	}

}
