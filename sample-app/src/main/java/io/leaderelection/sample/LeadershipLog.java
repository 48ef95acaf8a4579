package io.leaderelection.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.stereotype.Component;

/**
 * Logs every change of leadership, as Spring Integration's leader events report it.
 */
@Component
class LeadershipLog {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipLog.class);

	@EventListener
	void granted(OnGrantedEvent event) {
		logger.info("This replica became leader of election '{}'", event.getRole());
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		logger.info("This replica is no longer leader of election '{}'", event.getRole());
	}

}
