package io.leaderelection.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's examples of testing leader-only code are compiled and run: each Java block of that
 * section is, line for line, part of a test of this module; a line {@code // ...} in a block
 * stands for the test's own lines there.
 */
class ReadmeExamplesTests {

	private static final Path README = Path.of("..", "README.md");

	private static final String SECTION = "## Testing your leader-only code";

	private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	@Test
	void everyJavaExampleOfTheSectionIsInATestOfThisModule() throws IOException {
		String readme = Files.readString(README);
		int start = readme.indexOf(SECTION);
		assertThat(start).as("README section '%s'", SECTION).isNotNegative();
		int end = readme.indexOf("\n## ", start + SECTION.length());
		String section = readme.substring(start, (end < 0) ? readme.length() : end);
		List<String> examples = new ArrayList<>();
		Matcher matcher = JAVA_BLOCK.matcher(section);
		while (matcher.find()) {
			examples.add(normalized(matcher.group(1)));
		}
		assertThat(examples).hasSizeGreaterThanOrEqualTo(2);
		List<String> tests = testSources();
		assertThat(examples).allSatisfy((example) -> assertThat(tests).anySatisfy((test) -> assertThat(test)
			.containsSubsequence(example.split("\n// \\.\\.\\.\n"))));
	}

	private static List<String> testSources() throws IOException {
		try (Stream<Path> files = Files.walk(Path.of("src", "test", "java"))) {
			return files.filter((file) -> file.toString().endsWith(".java")).map((file) -> {
				try {
					return normalized(Files.readString(file));
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}).toList();
		}
	}

	/** Lines without their indentation: the README may indent with spaces what the sources indent with tabs. */
	private static String normalized(String code) {
		return code.lines().map(String::strip).filter((line) -> !line.isEmpty()).collect(Collectors.joining("\n"));
	}

}
