package io.leaderelection.engine;

/** The Lease to update no longer exists (HTTP 404). */
public class LeaseNotFoundException extends LeaseStoreException {

	public LeaseNotFoundException(String verb, String lease, String detail) {
		super(verb, lease, 404, detail);
	}

}
