package io.leaderelection.controlplane;

import java.nio.file.Path;

/**
 * Files of this module and of the repository around it, found from the module's directory: the
 * system property {@value #PROPERTY}, which the build sets, else the working directory, where
 * surefire runs the tests.
 */
final class ModuleFiles {

	static final String PROPERTY = "control-plane.module";

	private ModuleFiles() {
	}

	/** A path relative to this module's directory, e.g. {@code ../docs/operations.md}. */
	static Path of(String relative) {
		return Path.of(System.getProperty(PROPERTY, ".")).resolve(relative).toAbsolutePath().normalize();
	}

}
