package io.leaderelection.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A level-2 section of a Markdown file that a harness records on its own: its heading line up
 * to the next level-2 heading. The harnesses that run apart from the main one write their
 * section in place of its earlier version, and the main one keeps it when it rewrites the file.
 */
public record MarkdownSection(String heading) {

	/** The recorded section in the file; {@code null} when there is none. */
	public String recorded(Path file) throws IOException {
		if (!Files.exists(file)) {
			return null;
		}
		String text = Files.readString(file);
		int start = start(text);
		return (start < 0) ? null : text.substring(start, end(text, start));
	}

	/** Writes the section into the file in place of its earlier version, or at its end. */
	public void write(Path file, String section) throws IOException {
		Path parent = file.toAbsolutePath().getParent();
		if (parent != null) {
			Files.createDirectories(parent);
		}
		String text = Files.exists(file) ? Files.readString(file) : "";
		int start = start(text);
		String updated;
		if (start >= 0) {
			String rest = text.substring(end(text, start));
			updated = text.substring(0, start) + section + (rest.isEmpty() ? "" : "\n" + rest);
		}
		else {
			updated = text.isEmpty() ? section : (text.endsWith("\n\n") ? text : text.endsWith("\n") ? text + "\n"
					: text + "\n\n") + section;
		}
		Files.writeString(file, updated);
	}

	private int start(String text) {
		if (text.startsWith(this.heading + "\n")) {
			return 0;
		}
		int at = text.indexOf("\n" + this.heading + "\n");
		return (at < 0) ? -1 : at + 1;
	}

	private int end(String text, int start) {
		int next = text.indexOf("\n## ", start + this.heading.length());
		return (next < 0) ? text.length() : next + 1;
	}

}
