package io.leaderelection.store;

/**
 * A Pod as an owner reference names it: a name, which a later Pod may take again, and the uid
 * that only this Pod ever has.
 *
 * @param name metadata.name
 * @param uid metadata.uid
 */
public record PodReference(String name, String uid) {

	@Override
	public String toString() {
		return this.name + " (uid " + this.uid + ")";
	}

}
