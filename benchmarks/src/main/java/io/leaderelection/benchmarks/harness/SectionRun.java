package io.leaderelection.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The run of a harness that records one section of the benchmarks file: its arguments, when it
 * started and the machine's load then, the opening of its section, and where the section goes:
 * in place of its earlier version in the file named by {@code benchmarks.output}, or, for a quick
 * trial, in {@code target/NAME-quick.md} (NAME the harness's class in kebab case).
 */
public final class SectionRun {

	/** The command that runs the harnesses, {@code -Dbenchmarks.main=...} added for all but the default. */
	public static final String COMMAND = "./mvnw -B -Pbenchmarks -pl benchmarks -am verify";

	private final Class<?> harness;

	private final MarkdownSection section;

	private final HarnessArguments arguments;

	private final String argumentText;

	private final Instant started = Instant.now();

	private final String loadBefore = Machine.loadAverage();

	/** @param keys the keys the harness takes, named in the message about an unknown argument */
	public SectionRun(Class<?> harness, MarkdownSection section, String[] args, String keys) {
		this.harness = harness;
		this.section = section;
		this.arguments = HarnessArguments.parse(args, keys);
		this.argumentText = String.join(" ", args).trim();
	}

	public HarnessArguments arguments() {
		return this.arguments;
	}

	public boolean quick() {
		return this.arguments.quick();
	}

	/** The command that runs this harness. */
	public String command() {
		return COMMAND + " -Dbenchmarks.main=" + this.harness.getName();
	}

	/**
	 * The section's heading and the opening of a recorded run, the run ending now.
	 * @param quickNote what makes a quick trial short
	 */
	public void open(StringBuilder out, String quickNote) {
		out.append(this.section.heading()).append("\n\n");
		producedBy(out, quickNote);
	}

	/**
	 * The opening of the recorded run, ending now: see {@link #producedBy(StringBuilder, String, String, String,
	 * Instant, Instant, String, String)}.
	 */
	public void producedBy(StringBuilder out, String quickNote) {
		producedBy(out, command(), this.argumentText, quick() ? quickNote : null, this.started, Instant.now(),
				this.loadBefore, Machine.loadAverage());
	}

	/** Prints the section and writes it into its file, then exits the JVM (the electors' threads may linger). */
	public void record(String text) throws IOException {
		System.out.println();
		System.out.println(text);
		String name = this.harness.getSimpleName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase();
		Path output = quick() ? Path.of("target", name + "-quick.md")
				: Path.of(System.getProperty("benchmarks.output", "target/" + name + ".md"));
		this.section.write(output, text);
		Log.log("written to " + output.toAbsolutePath().normalize() + " under \"" + this.section.heading() + "\"");
		System.exit(0);
	}

	/**
	 * The opening of a recorded run: the command that produced it (with its arguments), a warning
	 * if it was a quick trial, its dates and duration, the machine and its load before and after.
	 * @param quickNote what makes the quick trial short, {@code null} for a run of record
	 */
	public static void producedBy(StringBuilder out, String command, String arguments, String quickNote,
			Instant started, Instant finished, String loadBefore, String loadAfter) {
		out.append("Produced by\n\n```shell\n").append(command);
		if (!arguments.isBlank()) {
			out.append(" -Dbenchmarks.args=\"").append(arguments.trim()).append('"');
		}
		out.append("\n```\n\n");
		if (quickNote != null) {
			out.append("**A quick trial run (").append(quickNote).append("): not the figures of record.**\n\n");
		}
		long seconds = Duration.between(started, finished).toSeconds();
		out.append("- Date: ")
			.append(DateTimeFormatter.ISO_INSTANT.format(started.truncatedTo(ChronoUnit.SECONDS)))
			.append(" to ")
			.append(DateTimeFormatter.ISO_INSTANT.format(finished.truncatedTo(ChronoUnit.SECONDS)))
			.append(" (")
			.append(seconds / 60)
			.append(" min")
			.append((seconds % 60 != 0) ? " " + (seconds % 60) + " s" : "")
			.append(")\n");
		Machine.describe(out, loadBefore, loadAfter);
	}

}
