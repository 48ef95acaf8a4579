package io.leaderelection.store;

/**
 * Where a follower learns that the process holding a Lease has ended, from a report that
 * proves it (the kubelet's, in its Pod's status), so that it may claim that version at once
 * instead of waiting out its lease duration. Nothing here decides: the engine does.
 */
public interface HolderExits {

	/** No version names its holder's process: every holder is waited out. */
	HolderExits NONE = new HolderExits() {

		@Override
		public ContainerInstance holderInstance(LeaseRecord version) {
			return null;
		}

		@Override
		public Followed follow(ContainerInstance instance, Runnable changed) {
			throw new IllegalStateException("no instance to follow");
		}

	};

	/**
	 * The run of the container the version's holder says it holds from; {@code null} when it names
	 * none that this replica can judge (none at all, one of another holder, one it cannot read).
	 */
	ContainerInstance holderInstance(LeaseRecord version);

	/**
	 * Follows the Pod of that run, telling {@code changed}, on any thread, whenever its status
	 * changed; until {@link Followed#close()}.
	 */
	Followed follow(ContainerInstance instance, Runnable changed);

	/** A run followed. */
	interface Followed {

		/**
		 * Why the run is known to have ended, once a report proved it (never forgotten: a run that
		 * ended stays ended, whatever becomes of its Pod); {@code null} until then.
		 */
		String endedBecause();

		void close();

	}

}
