package io.leaderelection.test;

import java.util.List;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Finds {@link AutoConfigureTestLeaderElection} on a test class, its superclasses or enclosing
 * classes; tests without it get nothing.
 */
class TestLeaderElectionContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		AutoConfigureTestLeaderElection annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass,
				AutoConfigureTestLeaderElection.class);
		return (annotation != null) ? new TestLeaderElectionContextCustomizer(List.of(annotation.leaderOf())) : null;
	}

}
