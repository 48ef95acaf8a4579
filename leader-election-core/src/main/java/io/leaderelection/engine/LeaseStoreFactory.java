package io.leaderelection.engine;

/** Creates the {@link LeaseStore} of an election. */
@FunctionalInterface
public interface LeaseStoreFactory {

	LeaseStore create(ElectionSettings election);

}
