package io.leaderelection.engine;

import io.leaderelection.engine.rules.OneWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs what the core tells of another process writing under our identity, once each way. */
final class OtherWriterLog implements OneWriter.Told {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final String lease;

	private final String election;

	private final String identity;

	OtherWriterLog(String lease, String election, String identity) {
		this.lease = lease;
		this.election = election;
		this.identity = identity;
	}

	@Override
	public void otherWriterSeen() {
		logger.error("Another process writes {} of election '{}' as '{}', this replica's identity: two replicas "
				+ "were given one identity (leader.election.identity). This replica keeps out of the election "
				+ "while the other one writes.", this.lease, this.election, this.identity);
	}

	@Override
	public void otherWriterGone(String reason) {
		logger.info("{} of election '{}': {}; '{}' campaigns again", this.lease, this.election, reason, this.identity);
	}

}
