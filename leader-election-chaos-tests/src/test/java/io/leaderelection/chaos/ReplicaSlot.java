package io.leaderelection.chaos;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import io.fabric8.kubernetes.client.ConfigBuilder;

/**
 * One replica of the application, like a pod of a StatefulSet: it outlives the processes that
 * run in it. Each process started in it gets a new identity; the network link, the clock and
 * the pauses belong to the replica. For life, it is rather a replica of a StatefulSet or a
 * Deployment: it outlives the Pods its processes run in, one after the other (see {@link Pods}).
 */
final class ReplicaSlot implements AutoCloseable {

	private final String name;

	private final NetworkLink link;

	private final ChaosServer server;

	private final Pause pause = new Pause();

	private volatile Duration clockOffset = Duration.ZERO;

	private int processes;

	/** @param link its link to the server */
	ReplicaSlot(String name, NetworkLink link, ChaosServer server) {
		this.name = name;
		this.link = link;
		this.server = server;
	}

	String name() {
		return this.name;
	}

	NetworkLink link() {
		return this.link;
	}

	Pause pause() {
		return this.pause;
	}

	/** The configuration of a client of its process: to the server through its link, known by its name. */
	ConfigBuilder clientConfig() {
		return this.server.config(this.link.port(), this.name);
	}

	/** The identity of the next process started in this replica. */
	String nextIdentity(String elector) {
		return elector + "-" + this.name + "-" + nextProcess();
	}

	/**
	 * The name of the replica a process campaigning with the identity was started in, as
	 * {@link #nextIdentity} names it (a duplicate identity's twin: the replica of the process it
	 * copies); {@code null} for an identity not named so.
	 */
	static String nameInIdentity(String identity) {
		int prefix = identity.indexOf('-');
		int process = identity.lastIndexOf('-');
		return (prefix >= 0 && process > prefix) ? identity.substring(prefix + 1, process) : null;
	}

	/** The number of the next process started in this replica: 1 for the first. */
	int nextProcess() {
		return ++this.processes;
	}

	/** How far this replica's wall clock is from the true time. */
	Duration clockOffset() {
		return this.clockOffset;
	}

	void shiftClock(Duration offset) {
		this.clockOffset = offset;
	}

	/** This replica's wall clock: UTC shifted by the current offset. */
	Clock wallClock() {
		return new ShiftedClock(this);
	}

	@Override
	public void close() {
		this.link.close();
	}

	private static final class ShiftedClock extends Clock {

		private final ReplicaSlot slot;

		ShiftedClock(ReplicaSlot slot) {
			this.slot = slot;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException("A replica's clock is in UTC");
		}

		@Override
		public Instant instant() {
			return Instant.now().plus(this.slot.clockOffset);
		}

	}

}
