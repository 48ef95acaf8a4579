package io.leaderelection.engine;

import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.leaderelection.store.LeaseStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** A failure repeated every retry period is logged once, then summarised a minute, then its end. */
class FailureLogTests {

	private static final long SECOND = 1_000_000_000L;

	private final Logger logger = (Logger) LoggerFactory.getLogger(Election.class);

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private final FailureLog log = new FailureLog("orders");

	@BeforeEach
	void capture() {
		this.logged.start();
		this.logger.addAppender(this.logged);
	}

	@AfterEach
	void release() {
		this.logger.detachAppender(this.logged);
	}

	@Test
	void theSameFailureEveryRetryPeriodIsLoggedOnceThenSummarisedEveryMinuteAndItsEndIsTold() {
		for (long second = 0; second <= 130; second += 2) {
			this.log.failed(noServer("kubernetes.default.svc" + ((second == 0) ? ": Name or service not known" : "")),
					second * SECOND);
		}
		this.log.succeeded(131 * SECOND);
		assertThat(messages()).containsExactly(
				"Election 'orders': get Lease team/orders-leader: java.net.UnknownHostException: kubernetes.default.svc: Name or service not known",
				"Election 'orders' still fails: 30 more times in the last 60 s, 31 times in 60 s in all; last: get Lease team/orders-leader: java.net.UnknownHostException: kubernetes.default.svc",
				"Election 'orders' still fails: 30 more times in the last 60 s, 61 times in 120 s in all; last: get Lease team/orders-leader: java.net.UnknownHostException: kubernetes.default.svc",
				"Election 'orders' reaches its Lease again, after 66 failed calls in 131 s");
	}

	@Test
	void anotherKindOfFailureIsLoggedAtOnce() {
		this.log.failed(noServer("kubernetes.default.svc"), 0);
		this.log.failed(new LeaseStoreException("get", "Lease team/orders-leader", 403, "403 Forbidden"), SECOND);
		this.log.failed(new LeaseStoreException("get", "Lease team/orders-leader", 403, "403 Forbidden"), 2 * SECOND);
		assertThat(messages()).hasSize(2).last().asString().contains("403 Forbidden");
	}

	@Test
	void requestsWithoutAnswerAreOneKindWhateverTheirTimeoutAndAKindThatEndsIsSummed() {
		this.log.failed(LeaseStoreException.noAnswer("update", "Lease team/orders-leader", Duration.ofMillis(750), null),
				0);
		this.log.failed(LeaseStoreException.noAnswer("update", "Lease team/orders-leader", Duration.ofMillis(500), null),
				SECOND);
		this.log.failed(new LeaseStoreException("update", "Lease team/orders-leader", 403, "403 Forbidden"),
				2 * SECOND);
		assertThat(messages()).containsExactly(
				"Election 'orders': update Lease team/orders-leader: no answer within 750 ms",
				"Election 'orders' failed 1 more times as before in the last 2 s",
				"Election 'orders': update Lease team/orders-leader: 403 Forbidden");
	}

	@Test
	void aSingleFailureEndsWithoutALineOfItsOwn() {
		this.log.failed(noServer("kubernetes.default.svc"), 0);
		this.log.succeeded(SECOND);
		assertThat(messages()).hasSize(1);
	}

	private static LeaseStoreException noServer(String detail) {
		UnknownHostException cause = new UnknownHostException(detail);
		return new LeaseStoreException("get", "Lease team/orders-leader", 0, String.valueOf(cause), cause);
	}

	private List<String> messages() {
		return this.logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

}
