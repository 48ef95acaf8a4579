package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.leaderelection.store.LeaseStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way to the leader of one election, kept by every replica: the EndpointSlice of a Service
 * without selector, which names this replica while it leads and is emptied when it stops, and a
 * label on this replica's Pod, {@code leaderelection.io/<election>: leader} or {@code follower}.
 * Either may be left out. Created by {@link KubernetesLeaseStores#route}.
 * <p>
 * {@link #lead} and {@link #follow} say what the route should be; each change is written in the
 * order asked, one after the other, and a write that fails is tried again every retry period for
 * as long as nothing else was asked. The caller orders the changes with the term: {@code lead}
 * once its term began, {@code follow} when its gate closed, waiting for it before a release of
 * its own accord. A change asked while a write of the one before is under way waits only for the
 * call on its way, not for the rest of that write.
 * <p>
 * While this replica leads, the slice is kept: once written, it is looked at every retry period
 * (the slice and its Service, from the API server's cache), and written again when it is gone or
 * owned by a Service deleted since, as after a Service is deleted and created again.
 */
public final class LeaderRoute implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeaderRoute.class);

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final String election;

	private final LeaderEndpointSlice slice;

	private final PodRoleLabel label;

	private final Duration timeout;

	private final Duration retryPeriod;

	private final Object lock = new Object();

	/** What was asked last; {@code null} before anything was. Guarded by the lock. */
	private Wanted wanted;

	/** Counts what was asked; a write for an earlier count is no longer wanted. Guarded by the lock. */
	private long generation;

	/** Whether the slice and the label are as last asked. Guarded by the lock. */
	private boolean sliceDone;

	/**
	 * Whether the slice named this replica under the term last asked for: from then on, it is
	 * kept so. Guarded by the lock.
	 */
	private boolean sliceKept;

	private boolean labelDone;

	/** The last change asked for, written or not: the next one waits for it. Guarded by the lock. */
	private CompletableFuture<Void> tail = DONE;

	/** Completes once what was asked last is written, or no longer wanted. Guarded by the lock. */
	private CompletableFuture<Void> settled = DONE;

	/**
	 * The fencing token of the last term the slice was written under, or may have been (a write
	 * without answer may have landed), until it is withdrawn. Guarded by the lock.
	 */
	private Long namedUnder;

	/** Why the last write failed, {@code null} once all were written. */
	private volatile String problem;

	/** The status code of the failure logged last, {@code -1} while none is. Guarded by the lock. */
	private int loggedCode = -1;

	private boolean closed;

	LeaderRoute(String election, LeaderEndpointSlice slice, PodRoleLabel label, Duration timeout,
			Duration retryPeriod) {
		this.election = election;
		this.slice = slice;
		this.label = label;
		this.timeout = timeout;
		this.retryPeriod = retryPeriod;
	}

	/**
	 * This replica leads the election under the given term: the slice is to name it, unless a
	 * newer term wrote it, and its Pod is labelled {@code leader}.
	 * @return completes once the first attempt at writing that ended, written or not
	 */
	public CompletableFuture<Void> lead(long fencingToken) {
		return want(new Wanted(true, fencingToken));
	}

	/**
	 * This replica does not lead the election: the slice is to be emptied if it still names this
	 * replica under the last term it was written under, and its Pod is labelled {@code follower}.
	 * @return completes once both are written (failed writes being tried again meanwhile), or
	 * when they are no longer wanted: something else was asked since, or the route was closed
	 */
	public CompletableFuture<Void> follow() {
		synchronized (this.lock) {
			want(new Wanted(false, 0));
			return this.settled;
		}
	}

	/** What the route writes, for a log line. */
	public String describe() {
		List<String> parts = new ArrayList<>();
		if (this.slice != null) {
			parts.add(this.slice.describe());
		}
		if (this.label != null) {
			parts.add(this.label.describe());
		}
		return "route of election '" + this.election + "' (" + String.join(", ", parts) + ")";
	}

	/** Why the last write failed, {@code null} once everything asked was written. */
	public String problem() {
		return this.problem;
	}

	/** Stops trying again; what is on its way still ends. */
	@Override
	public void close() {
		synchronized (this.lock) {
			this.closed = true;
			this.settled.complete(null);
		}
	}

	private CompletableFuture<Void> want(Wanted wanted) {
		synchronized (this.lock) {
			this.wanted = wanted;
			this.generation++;
			this.sliceDone = this.slice == null;
			this.sliceKept = false;
			this.labelDone = this.label == null;
			this.settled.complete(null);
			this.settled = new CompletableFuture<>();
			return enqueue(this.generation);
		}
	}

	/** Queues a write of what was asked, behind the writes before it. Holds the lock. */
	private CompletableFuture<Void> enqueue(long generation) {
		CompletableFuture<Void> step = this.tail.handle((ignored, failure) -> null)
			.thenCompose((ignored) -> write(generation));
		this.tail = step;
		return step;
	}

	/** Writes what is still to be written of the given generation, if it is still wanted; never fails. */
	private CompletableFuture<Void> write(long generation) {
		Wanted now;
		boolean writeSlice;
		boolean keeping;
		boolean writeLabel;
		Long withdrawn;
		synchronized (this.lock) {
			if (generation != this.generation || this.closed) {
				return DONE;
			}
			now = this.wanted;
			writeSlice = !this.sliceDone;
			keeping = this.sliceKept;
			writeLabel = !this.labelDone;
			if (now.leading() && writeSlice) {
				this.namedUnder = now.fencingToken();
			}
			withdrawn = this.namedUnder;
		}
		// composed onto a completed future, so that a write failing before it is sent fails the future
		CompletableFuture<Void> sliceWritten = writeSlice
				? DONE.thenCompose((ignored) -> writeSlice(now, keeping, withdrawn)) : DONE;
		return sliceWritten.handle((ignored, failure) -> failure).thenCompose((sliceFailure) -> {
			// a change asked meanwhile goes first: it waits for no more than the call that was on its way
			CompletableFuture<Void> labelWritten = (writeLabel && wanted(generation)) ? DONE.thenCompose((ignored) -> this.label
				.set(now.leading() ? PodRoleLabel.LEADER : PodRoleLabel.FOLLOWER, this.timeout)) : DONE;
			return labelWritten.handle((ignored, labelFailure) -> {
				ended(generation, sliceFailure, labelFailure);
				return null;
			});
		});
	}

	private CompletableFuture<Void> writeSlice(Wanted now, boolean keeping, Long withdrawn) {
		if (now.leading()) {
			long token = now.fencingToken();
			return (keeping ? this.slice.keep(token, this.timeout) : this.slice.name(token, this.timeout))
				.thenAccept((naming) -> {
					if (!naming.names()) {
						forget(token);
						logger.info("{} is left to a newer term of election '{}' than this replica's (fencing token {})",
								this.slice.describe(), this.election, token);
					}
					else if (keeping && naming.written()) {
						logger.warn("{} is written again, naming this replica as leader of election '{}' (fencing "
								+ "token {}): {}", this.slice.describe(), this.election, token, naming.reason());
					}
					else if (!keeping) {
						logger.info("{} names this replica as leader of election '{}' (fencing token {})",
								this.slice.describe(), this.election, token);
					}
				});
		}
		if (withdrawn == null) {
			return DONE;
		}
		return this.slice.withdraw(withdrawn, this.timeout).thenAccept((emptied) -> {
			forget(withdrawn);
			if (emptied) {
				logger.info("{} emptied: this replica no longer leads election '{}' (fencing token {})",
						this.slice.describe(), this.election, withdrawn);
			}
		});
	}

	private boolean wanted(long generation) {
		synchronized (this.lock) {
			return generation == this.generation && !this.closed;
		}
	}

	/** The slice no longer names this replica under the given term. */
	private void forget(long fencingToken) {
		synchronized (this.lock) {
			if (this.namedUnder != null && this.namedUnder == fencingToken) {
				this.namedUnder = null;
			}
		}
	}

	/**
	 * Takes note of how a write ended: done, or to be tried again a retry period from now; a slice
	 * that names this replica is looked at again a retry period from now.
	 */
	private void ended(long generation, Throwable sliceFailure, Throwable labelFailure) {
		synchronized (this.lock) {
			if (generation != this.generation) {
				return;
			}
			this.sliceDone |= sliceFailure == null;
			this.labelDone |= labelFailure == null;
			Throwable failure = (sliceFailure != null) ? sliceFailure : labelFailure;
			if (failure == null) {
				if (this.problem != null) {
					logger.info("The {} is written again", describe());
				}
				this.problem = null;
				this.loggedCode = -1;
				if (this.sliceDone && this.labelDone) {
					this.settled.complete(null);
				}
				if (namesUs()) {
					this.sliceKept = true;
					inARetryPeriod(() -> keep(generation));
				}
				return;
			}
			failed(unwrap(failure));
			inARetryPeriod(() -> retry(generation));
		}
	}

	/** Whether this replica leads and the slice names it under its term. Holds the lock. */
	private boolean namesUs() {
		return this.slice != null && this.wanted.leading() && this.namedUnder != null
				&& this.namedUnder == this.wanted.fencingToken();
	}

	/** Runs the step a retry period from now, unless the route is closed; the step looks again when it runs. */
	private void inARetryPeriod(Runnable step) {
		if (!this.closed) {
			CompletableFuture.delayedExecutor(this.retryPeriod.toNanos(), TimeUnit.NANOSECONDS).execute(step);
		}
	}

	private void retry(long generation) {
		synchronized (this.lock) {
			if (generation == this.generation && !this.closed) {
				enqueue(generation);
			}
		}
	}

	/** Looks at the slice again, and writes it again if it was lost while this replica leads. */
	private void keep(long generation) {
		synchronized (this.lock) {
			if (generation == this.generation && !this.closed) {
				this.sliceDone = false;
				enqueue(generation);
			}
		}
	}

	/** Logs a kind of failure once, until a write succeeds again. Holds the lock. */
	private void failed(Throwable failure) {
		int code = (failure instanceof LeaseStoreException storeFailure) ? storeFailure.getStatusCode() : 0;
		this.problem = "Cannot write the " + describe() + ": " + failure.getMessage();
		if (this.loggedCode != code) {
			this.loggedCode = code;
			logger.warn("{}; trying again every {} ms while it is wanted", this.problem, this.retryPeriod.toMillis());
		}
	}

	/** The failure a completion stage failed with, without the {@link CompletionException} around it. */
	static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/**
	 * What the route should be.
	 *
	 * @param leading whether this replica leads
	 * @param fencingToken the fencing token of the term it leads under; 0 when it does not lead
	 */
	private record Wanted(boolean leading, long fencingToken) {

	}

	/**
	 * This replica's endpoint in the EndpointSlice of a Service.
	 *
	 * @param service the name of the Service, without selector, and of its EndpointSlice
	 * @param address this replica's IPv4 or IPv6 address
	 * @param ports the ports by name; a Service port is routed to the port of its own name
	 * @param podName the Pod this replica runs in, named as the endpoint's target; {@code null}
	 * when unknown
	 */
	public record Endpoint(String service, String address, Map<String, Integer> ports, String podName) {

		public Endpoint {
			ports = Collections.unmodifiableMap(new TreeMap<>(ports));
		}

		/** The slice's address type: {@code IPv6} for an address with a colon, else {@code IPv4}. */
		String addressType() {
			return this.address.contains(":") ? "IPv6" : "IPv4";
		}

	}

}
