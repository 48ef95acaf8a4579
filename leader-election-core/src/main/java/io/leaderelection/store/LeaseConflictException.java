package io.leaderelection.store;

/** A conditional write lost: someone else created or wrote the Lease first (HTTP 409). */
public class LeaseConflictException extends LeaseStoreException {

	public LeaseConflictException(String verb, String lease, String detail) {
		super(verb, lease, 409, detail);
	}

}
