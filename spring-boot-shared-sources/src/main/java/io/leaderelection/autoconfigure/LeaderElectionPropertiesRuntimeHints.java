package io.leaderelection.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Runtime hints for binding {@code leader.election.*}: the binder reaches the properties, the
 * named elections' nested type and the enums through their constructors and setters. Spring Boot
 * registers the same for the properties bean it finds while processing ahead of time; the
 * starter states them itself so that they do not depend on that bean being found.
 */
class LeaderElectionPropertiesRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(LeaderElectionProperties.class).registerHints(hints, classLoader);
	}

}
