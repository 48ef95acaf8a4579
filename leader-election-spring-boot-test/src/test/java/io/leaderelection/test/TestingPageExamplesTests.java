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
 * The examples of docs/testing.md are compiled and run: each Java block of that page is, line
 * for line, part of a test of this module; a line {@code // ...} in a block stands for the
 * test's own lines there.
 */
class TestingPageExamplesTests {

	private static final Path PAGE = Path.of("..", "docs", "testing.md");

	private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	@Test
	void everyJavaExampleOfThePageIsInATestOfThisModule() throws IOException {
		List<String> examples = new ArrayList<>();
		Matcher matcher = JAVA_BLOCK.matcher(Files.readString(PAGE));
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

	/** Lines without their indentation: the page may indent with spaces what the sources indent with tabs. */
	private static String normalized(String code) {
		return code.lines().map(String::strip).filter((line) -> !line.isEmpty()).collect(Collectors.joining("\n"));
	}

}
