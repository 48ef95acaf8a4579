package io.leaderelection.engine;

import io.leaderelection.engine.rules.OwnWrites;
import io.leaderelection.store.LeaseRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One identity, one writer: tells versions this process wrote from versions another process
 * wrote under our identity. The first such version may be an earlier process's, left behind; a
 * second, newer one means a live writer, and two writers under one identity could both believe
 * they lead, so this one keeps out while the other writes.
 */
final class OneWriter {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final String identity;

	private final String election;

	private final String lease;

	/** What shows that another process writes the Lease under our identity; {@code null} when nothing. */
	private volatile String conflict;

	/** The last version seen that names our identity but was not written by this process. */
	private LeaseRecord foreignVersionNamingUs;

	OneWriter(String identity, String election, String lease) {
		this.identity = identity;
		this.election = election;
		this.lease = lease;
	}

	/** What shows that another process writes under our identity; {@code null} when nothing. Lock-free. */
	String conflict() {
		return this.conflict;
	}

	/** Takes note of a version seen, written by this process or not. */
	void notice(LeaseRecord version, OwnWrites ownWrites) {
		if (!version.isHeldBy(this.identity)) {
			this.foreignVersionNamingUs = null;
			end("it no longer names '" + this.identity + "'");
		}
		else if (ownWrites.wrote(version)) {
			this.foreignVersionNamingUs = null;
		}
		else {
			LeaseRecord before = this.foreignVersionNamingUs;
			if (before != null && !LeaseRecord.sameInstant(before.renewTime(), version.renewTime())) {
				conflictSeen(version);
			}
			this.foreignVersionNamingUs = version;
		}
	}

	/** The Lease is missing: whoever wrote it under our identity writes it no more. */
	void leaseMissing() {
		this.foreignVersionNamingUs = null;
		end("it was deleted");
	}

	/** Another process writes the Lease under our identity, as this version shows. */
	void conflictSeen(LeaseRecord version) {
		if (this.conflict == null) {
			logger.error("Another process writes {} of election '{}' as '{}', this replica's identity: two replicas "
					+ "were given one identity (leader.election.identity). This replica keeps out of the election "
					+ "while the other one writes.", this.lease, this.election, this.identity);
		}
		this.conflict = "another process writes " + this.lease + " as '" + this.identity + "' (renewTime "
				+ version.renewTime() + "); this replica keeps out";
	}

	/** The other writer is gone, for the given reason. */
	void end(String reason) {
		if (this.conflict != null) {
			logger.info("{} of election '{}': {}; '{}' campaigns again", this.lease, this.election, reason,
					this.identity);
			this.conflict = null;
		}
	}

}
