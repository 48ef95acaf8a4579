package io.leaderelection.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README stays a short first page whose two commands, to run the sample and every test, are
 * the ones CI runs; and every relative link of the README and of the pages under docs/ leads to a
 * file that exists and, when it names a heading, to that heading as GitHub anchors it.
 */
class DocumentationTests {

	private static final int README_MAX_LINES = 300;

	/** The sample app's tests run from its module, a directory below the repository's root. */
	private static final Path ROOT = Path.of("..");

	private static final Path README = ROOT.resolve("README.md");

	private static final Pattern FENCED_BLOCK = Pattern.compile("^\\s*```.*?^\\s*```[^\\n]*$",
			Pattern.DOTALL | Pattern.MULTILINE);

	private static final Pattern SHELL_BLOCK = Pattern.compile("```shell\\n(.*?)\\n```", Pattern.DOTALL);

	private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$", Pattern.MULTILINE);

	@Test
	void theReadmeStaysShort() throws IOException {
		assertThat(Files.readAllLines(README)).as("lines of the README; the rest belongs under docs/")
			.hasSizeLessThanOrEqualTo(README_MAX_LINES);
	}

	@Test
	void theReadmeGivesTheTwoCommandsThatCiRuns() throws IOException {
		String readme = Files.readString(README);
		int start = readme.indexOf("## Two commands");
		assertThat(start).as("the README's section '## Two commands'").isNotNegative();
		int end = readme.indexOf("\n## ", start + 1);
		List<String> commands = new ArrayList<>();
		Matcher block = SHELL_BLOCK.matcher(readme.substring(start, end));
		while (block.find()) {
			commands.add(block.group(1));
		}
		assertThat(commands).containsExactly("./mvnw -pl sample-app -am spring-boot:run", "./mvnw -B verify");
		List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run")).stream().map(String::strip).toList();
		assertThat(ci).as("the test command of .ci/run").contains("./mvnw -B verify");
		assertThat(ci).as("the sample's command in .ci/run, in batch mode")
			.anySatisfy((line) -> assertThat(line).endsWith("./mvnw -B -pl sample-app -am spring-boot:run"));
	}

	@Test
	void everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(README));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		List<String> broken = new ArrayList<>();
		Map<Path, Set<String>> anchors = new HashMap<>();
		for (Path page : pages) {
			Matcher link = LINK.matcher(prose(Files.readString(page)));
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-z]+:.*")) {
					continue;
				}
				int hash = target.indexOf('#');
				String file = (hash < 0) ? target : target.substring(0, hash);
				Path linked = file.isEmpty() ? page : page.resolveSibling(file).normalize();
				if (!Files.exists(linked)) {
					broken.add(page.normalize() + ": " + target + " (no such file)");
				}
				else if (hash >= 0 && linked.toString().endsWith(".md") && !anchors
					.computeIfAbsent(linked, DocumentationTests::anchors)
					.contains(target.substring(hash + 1))) {
					broken.add(page.normalize() + ": " + target + " (no such heading)");
				}
			}
		}
		assertThat(broken).as("links to files or headings that do not exist").isEmpty();
	}

	/** The text outside code blocks and code spans, where links are links. */
	private static String prose(String markdown) {
		return CODE_SPAN.matcher(FENCED_BLOCK.matcher(markdown).replaceAll("")).replaceAll("code");
	}

	/** The anchors GitHub gives a page's headings. */
	private static Set<String> anchors(Path page) {
		String markdown;
		try {
			markdown = FENCED_BLOCK.matcher(Files.readString(page)).replaceAll("");
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		Matcher heading = HEADING.matcher(markdown);
		while (heading.find()) {
			String slug = heading.group(1)
				.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
				.toLowerCase(Locale.ROOT)
				.replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
				.replace(' ', '-');
			int count = seen.merge(slug, 1, Integer::sum);
			anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
		}
		return anchors;
	}

}
