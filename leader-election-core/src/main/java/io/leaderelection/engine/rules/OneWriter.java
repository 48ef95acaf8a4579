package io.leaderelection.engine.rules;

import io.leaderelection.store.LeaseRecord;

/**
 * One identity, one writer: tells versions this process wrote from versions another process
 * wrote under our identity. The first such version may be an earlier process's, left behind; a
 * second, newer one means a live writer, and two writers under one identity could both believe
 * they lead, so this one keeps out while the other writes.
 */
public final class OneWriter {

	private final String identity;

	private final String lease;

	private final Told told;

	/** What shows that another process writes the Lease under our identity; {@code null} when nothing. */
	private volatile String conflict;

	/** The last version seen that names our identity but was not written by this process. */
	private LeaseRecord foreignVersionNamingUs;

	/**
	 * @param lease the Lease, as the conflict's description names it
	 * @param told told when another writer is first seen, and when it is gone
	 */
	public OneWriter(String identity, String lease, Told told) {
		this.identity = identity;
		this.lease = lease;
		this.told = told;
	}

	/** What shows that another process writes under our identity; {@code null} when nothing. Lock-free. */
	public String conflict() {
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
			this.told.otherWriterSeen();
		}
		this.conflict = "another process writes " + this.lease + " as '" + this.identity + "' (renewTime "
				+ version.renewTime() + "); this replica keeps out";
	}

	/** The other writer is gone, for the given reason. */
	public void end(String reason) {
		if (this.conflict != null) {
			this.told.otherWriterGone(reason);
			this.conflict = null;
		}
	}

	/** What the driver is told, to log it. */
	public interface Told {

		/** Another process was first seen writing the Lease under our identity. */
		void otherWriterSeen();

		/** The other writer is gone, for the given reason. */
		void otherWriterGone(String reason);

	}

}
