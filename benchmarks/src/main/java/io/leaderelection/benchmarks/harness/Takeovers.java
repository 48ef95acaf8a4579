package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.netcrusher.core.reactor.NioReactor;

/**
 * Leadership moving from one replica to the next, over and over on one Lease: the leader is
 * stopped with a release (graceful) or black-holed (crash), and the time until the follower's
 * gate opens is measured, as well as the gap from the old gate closing to the new one opening
 * (negative when both were open at once).
 * <p>
 * Each sample: a leader and one follower that has been running long enough to have sent its
 * first request (and, for a watching follower, opened its watch and been sent a renewal of the
 * leader through it); then a pause drawn uniformly from [0, 2.2 cycles), a cycle being the retry
 * period or the implementation's renew period, whichever is longer, with the same seed for every
 * implementation, so that the stop falls anywhere in a polling follower's cycle and in the
 * leader's; then the stop. The follower becomes the next leader and a new follower starts.
 */
public final class Takeovers {

	public enum Mode {

		GRACEFUL, CRASH

	}

	/**
	 * @param takeovers stop (or black-hole) to the follower's gate opening, in ns
	 * @param gaps old gate closing to the new one opening, in ns; negative when they overlapped
	 * @param neverClosed samples in which the old leader's gate was still open {@link #CLOSE_WAIT}
	 * after it was cut off (overlapping the new leader by at least that minus the takeover)
	 * @param problems what went wrong, if anything
	 */
	public record Result(Implementation implementation, Mode mode, Timings timings, List<Long> takeovers, List<Long> gaps,
			int neverClosed, List<String> problems) {
	}

	/** How long after a black-hole the old leader's gate closing is waited for. */
	public static final Duration CLOSE_WAIT = Duration.ofSeconds(90);

	private final BenchmarkServer server;

	private final NioReactor reactor;

	public Takeovers(BenchmarkServer server, NioReactor reactor) {
		this.server = server;
		this.reactor = reactor;
	}

	public Result run(Implementation implementation, Mode mode, int samples, Timings timings) throws InterruptedException {
		String lease = mode.name().toLowerCase() + "-" + implementation.key() + "-" + timings.leaseDuration().toMillis();
		String prefix = lease + "-r";
		Random random = new Random(42);
		List<Long> takeovers = new ArrayList<>();
		List<Long> gaps = Collections.synchronizedList(new ArrayList<>());
		List<String> problems = Collections.synchronizedList(new ArrayList<>());
		int[] neverClosed = new int[1];
		ExecutorService closing = Executors.newCachedThreadPool();
		List<CompletableFuture<?>> closings = new ArrayList<>();
		Duration takeoverTimeout = timings.leaseDuration().multipliedBy(2).plus(timings.retryPeriod().multipliedBy(5));
		long cycleMillis = cycle(implementation, timings).toMillis();
		int generation = 0;
		Replica leader = replica(implementation, mode, prefix + generation++, lease, timings);
		Replica follower = null;
		try {
			leader.candidate.start();
			if (leader.gates.awaitOpened(takeoverTimeout) == null) {
				problems.add("the first leader did not lead within " + takeoverTimeout.toSeconds() + " s");
				return new Result(implementation, mode, timings, takeovers, gaps, 0, problems);
			}
			follower = replica(implementation, mode, prefix + generation++, lease, timings);
			follower.candidate.start();
			for (int sample = 0; sample < samples; sample++) {
				awaitReady(implementation, follower, timings);
				Thread.sleep((long) (random.nextDouble() * 2.2 * cycleMillis));
				long stoppedAt = System.nanoTime();
				if (mode == Mode.GRACEFUL) {
					leader.candidate.stop();
				}
				else {
					leader.blackHole();
				}
				Long opened = follower.gates.awaitOpened(takeoverTimeout);
				if (opened == null) {
					problems.add("sample " + sample + ": no takeover within " + takeoverTimeout.toSeconds() + " s");
					break;
				}
				takeovers.add(opened - stoppedAt);
				Log.log(String.format("  %s %s %s sample %d: %s", implementation.label(), mode, timings,
						sample, Figures.duration(opened - stoppedAt)));
				Replica old = leader;
				if (mode == Mode.GRACEFUL) {
					Long closed = old.gates.awaitClosed(Duration.ofSeconds(10));
					if (closed != null) {
						gaps.add(opened - closed);
					}
					else {
						problems.add("sample " + sample + ": the stopped leader never reported its gate closed");
					}
					old.close();
				}
				else {
					closings.add(CompletableFuture.runAsync(() -> {
						try {
							Long closed = old.gates.awaitClosed(CLOSE_WAIT.minusNanos(System.nanoTime() - stoppedAt));
							if (closed != null) {
								gaps.add(opened - closed);
							}
							else {
								synchronized (neverClosed) {
									neverClosed[0]++;
								}
							}
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
						finally {
							old.close();
						}
					}, closing));
				}
				leader = follower;
				follower = replica(implementation, mode, prefix + generation++, lease, timings);
				follower.candidate.start();
			}
			CompletableFuture.allOf(closings.toArray(CompletableFuture[]::new))
				.get(CLOSE_WAIT.toSeconds() + 30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException interrupted) {
				throw interrupted;
			}
			problems.add(String.valueOf(ex));
		}
		finally {
			leader.close();
			if (follower != null) {
				follower.close();
			}
			closing.shutdownNow();
		}
		return new Result(implementation, mode, timings, takeovers, gaps, neverClosed[0], problems);
	}

	private Replica replica(Implementation implementation, Mode mode, String identity, String lease, Timings timings) {
		return (mode == Mode.GRACEFUL) ? Replica.direct(implementation, identity, this.server, lease, timings, true)
				: Replica.proxied(implementation, identity, this.server, this.reactor, lease, timings, false);
	}

	/** The retry period or the leader's renew period, whichever is longer. */
	public static Duration cycle(Implementation implementation, Timings timings) {
		Duration renewPeriod = implementation.renewPeriod(timings);
		return (renewPeriod.compareTo(timings.retryPeriod()) > 0) ? renewPeriod : timings.retryPeriod();
	}

	/** Until the follower has read the Lease once and, if it watches, opened its watch. */
	private void awaitReady(Implementation implementation, Replica follower, Timings timings)
			throws InterruptedException {
		Duration timeout = cycle(implementation, timings).multipliedBy(3).plusSeconds(5);
		if (!this.server.awaitRequest(follower.identity(), ApiServer.Kind.GET, timeout)) {
			throw new IllegalStateException(follower.identity() + " sent no request within " + timeout);
		}
		if (implementation.followersWatch()) {
			if (!this.server.awaitRequest(follower.identity(), ApiServer.Kind.WATCH, timeout)) {
				throw new IllegalStateException(follower.identity() + " opened no watch within " + timeout);
			}
			// The server logs a watch request before it registers the watch: wait until a renewal
			// of the leader has reached the follower after that (it sends no read meanwhile).
			Object seen = follower.candidate.lastSeenRenewal();
			Waits.until(() -> !Objects.equals(seen, follower.candidate.lastSeenRenewal()), Waits.deadline(timeout),
					() -> follower.identity() + " saw no renewal within " + timeout);
		}
	}

}
