package io.leaderelection.benchmarks.harness;

import java.util.List;
import java.util.Locale;

/** How the reports write their figures: durations, ratios, rates and percentiles. */
public final class Figures {

	/** What a cell shows when there is no figure. */
	public static final String NONE = "–";

	private Figures() {
	}

	/** A duration in nanoseconds: seconds to two decimals from 1 s, whole ms from 10 ms, else ms to one decimal. */
	public static String duration(long nanos) {
		double millis = nanos / 1e6;
		double magnitude = Math.abs(millis);
		if (magnitude >= 1000) {
			return String.format(Locale.ROOT, "%.2f s", millis / 1000);
		}
		if (magnitude >= 10) {
			return String.format(Locale.ROOT, "%.0f ms", millis);
		}
		return String.format(Locale.ROOT, "%.1f ms", millis);
	}

	/** The percentile of the durations by nearest rank, as {@link #duration}; {@link #NONE} for no values. */
	public static String percentile(List<Long> nanos, double percentile) {
		return nanos.isEmpty() ? NONE : duration(new Stats(nanos).percentile(percentile));
	}

	/** Ours ÷ theirs; {@link #NONE} when either is missing or zero, or they differ in sign. */
	public static String ratio(double ours, double theirs) {
		if (Double.isNaN(ours) || Double.isNaN(theirs) || theirs == 0 || Math.signum(ours) * Math.signum(theirs) < 0) {
			return NONE;
		}
		double ratio = ours / theirs;
		if (ratio == 0) {
			return "0";
		}
		return (ratio >= 10) ? String.format(Locale.ROOT, "%.0f", ratio)
				: (ratio >= 0.1) ? String.format(Locale.ROOT, "%.2f", ratio) : String.format(Locale.ROOT, "%.2g", ratio);
	}

	/** A rate per second: whole from 10, else to three decimals. */
	public static String rate(double perSecond) {
		return (perSecond == 0) ? "0" : (perSecond >= 10) ? String.format(Locale.ROOT, "%.0f", perSecond)
				: String.format(Locale.ROOT, "%.3f", perSecond);
	}

}
