package io.leaderelection.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class MarkdownSectionTests {

	private final MarkdownSection section = new MarkdownSection("## Mine");

	@TempDir
	Path directory;

	@Test
	void replacesItsEarlierVersionAndNothingElse() throws IOException {
		Path file = write("# Title\n\n## Before\n\nb\n\n## Mine\n\nold\n\n## After\n\na\n");
		this.section.write(file, "## Mine\n\nnew\n");
		assertThat(Files.readString(file)).isEqualTo("# Title\n\n## Before\n\nb\n\n## Mine\n\nnew\n\n## After\n\na\n");
	}

	@Test
	void appendsToAFileWithoutIt() throws IOException {
		Path file = write("# Title\n");
		this.section.write(file, "## Mine\n\nnew\n");
		assertThat(Files.readString(file)).isEqualTo("# Title\n\n## Mine\n\nnew\n");
	}

	@Test
	void createsAMissingFile() throws IOException {
		Path file = this.directory.resolve("sub/file.md");
		this.section.write(file, "## Mine\n\nnew\n");
		assertThat(Files.readString(file)).isEqualTo("## Mine\n\nnew\n");
	}

	@Test
	void readsTheRecordedSectionUpToTheNextLevelTwoHeading() throws IOException {
		Path file = write("## Mine\n\nkept\n\n### Sub\n\nalso\n\n## Other\n\nnot\n");
		assertThat(this.section.recorded(file)).isEqualTo("## Mine\n\nkept\n\n### Sub\n\nalso\n\n");
		assertThat(new MarkdownSection("## Mine too").recorded(file)).isNull();
		assertThat(this.section.recorded(this.directory.resolve("none.md"))).isNull();
	}

	private Path write(String text) throws IOException {
		Path file = this.directory.resolve("file.md");
		Files.writeString(file, text);
		return file;
	}

}
