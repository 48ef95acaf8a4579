package io.leaderelection.store;

/**
 * The Lease to update no longer exists: HTTP 404, or, from a real API server, the 409 of an update
 * whose uid precondition failed because the object was deleted (and perhaps created again).
 */
public class LeaseNotFoundException extends LeaseStoreException {

	public LeaseNotFoundException(String verb, String lease, String detail) {
		this(verb, lease, 404, detail);
	}

	public LeaseNotFoundException(String verb, String lease, int code, String detail) {
		super(verb, lease, code, detail);
	}

}
