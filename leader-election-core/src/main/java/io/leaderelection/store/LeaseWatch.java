package io.leaderelection.store;

/**
 * A running watch of one Lease, from {@link LeaseStore#watch}.
 */
public interface LeaseWatch {

	/** Stops the watch; the listener is told nothing more. */
	void close();

	/**
	 * Told of every change of the watched Lease, on whatever thread the store delivers it.
	 */
	interface Listener {

		/**
		 * The server has accepted the watch: from now on every change is told. Until then the
		 * watch may miss changes, so a follower keeps polling.
		 */
		void opened();

		/** The Lease changed to this record; {@code null} when it was deleted. */
		void changed(LeaseRecord record);

		/**
		 * The Lease was deleted; {@code lastVersion} is the object deleted, {@code null} when the
		 * store does not tell. A store may tell a deletion through {@code changed(null)} instead.
		 */
		default void deleted(LeaseRecord lastVersion) {
			changed(null);
		}

		/** The watch ended on its own, failed or closed by the server; nothing more will come. */
		void ended(Throwable cause);

	}

}
