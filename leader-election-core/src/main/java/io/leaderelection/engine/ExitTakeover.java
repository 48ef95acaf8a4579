package io.leaderelection.engine;

import io.leaderelection.store.ContainerInstance;
import io.leaderelection.store.HolderExits;
import io.leaderelection.store.LeaseRecord;

/**
 * A follower's judgment that the holder of the version it last saw has ended, by the proof its
 * store finds ({@link HolderExits}): the run of the container that version names, followed from
 * the moment it is first seen until another run, or none, is named. The claim it allows is still
 * a compare-and-swap on that very version, so that a proof of one run never reaches a version a
 * later run wrote.
 */
final class ExitTakeover {

	private final HolderExits exits;

	private final Runnable changed;

	private ContainerInstance followedInstance;

	private HolderExits.Followed followed;

	/** @param changed told, on any thread, when the followed run's Pod changed */
	ExitTakeover(HolderExits exits, Runnable changed) {
		this.exits = exits;
		this.changed = changed;
	}

	/**
	 * Why the process holding the given version has ended, or {@code null} when nothing proves it;
	 * follows the run the version names from now on.
	 * @param identity this replica's, whose own versions are never judged
	 */
	String holderEnded(LeaseRecord seen, String identity) {
		ContainerInstance instance = (seen != null && seen.hasHolder() && !seen.isHeldBy(identity))
				? this.exits.holderInstance(seen) : null;
		// a run named for another holder (another elector took the Lease, keeping the annotation) proves nothing
		if (instance == null || !seen.holderIdentity().equals(instance.holder())) {
			stop();
			return null;
		}
		if (!instance.equals(this.followedInstance)) {
			// the new run followed before the old one is let go, so that a shared watch stays open
			HolderExits.Followed previous = this.followed;
			this.followed = this.exits.follow(instance, this.changed);
			this.followedInstance = instance;
			if (previous != null) {
				previous.close();
			}
		}
		return this.followed.endedBecause();
	}

	/** Follows nothing any more. */
	void stop() {
		if (this.followed != null) {
			this.followed.close();
			this.followed = null;
			this.followedInstance = null;
		}
	}

}
