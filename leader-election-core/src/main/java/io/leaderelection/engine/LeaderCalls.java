package io.leaderelection.engine;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leader-only calls under way, per election: a call registers before it reads the gate and
 * leaves when it has ended, so that once a gate has closed, waiting for the calls registered at
 * that moment is waiting for every call that may have seen it open.
 * <p>
 * A call normally ends when it returns; a call that returns a future it has not finished yet
 * ends when that future completes ({@link Call#returned} then {@link Call#ended}).
 */
public class LeaderCalls implements LeaderWork {

	/** The innermost call under way on each thread; calls nest when gated code calls gated code. */
	private static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

	private final Map<String, Set<Call>> running = new ConcurrentHashMap<>();

	private volatile boolean refusing;

	/**
	 * Registers a call about to read the gate; {@code null} while calls are refused (the engine
	 * is stopping), in which case the call must not run.
	 * @param what what is called, for the log when it outlasts a drain: a {@link Method} or any
	 * object whose {@code toString} names it
	 */
	public Call enter(String election, boolean interruptOnRevoke, Object what) {
		Set<Call> calls = this.running.computeIfAbsent(election, (name) -> new HashSet<>());
		synchronized (calls) {
			if (this.refusing) {
				return null;
			}
			Call call = new Call(calls, Thread.currentThread(), interruptOnRevoke, what, CURRENT.get());
			calls.add(call);
			CURRENT.set(call);
			return call;
		}
	}

	/**
	 * Counts work started on no thread of its own as a call under way until it completes, so that
	 * a drain waits for it: work the gate's closing started, such as withdrawing the route to the
	 * leader, which is counted while calls are refused too.
	 * @param what what the work is, for the log when it outlasts a drain
	 */
	public void underWay(String election, CompletableFuture<?> work, Object what) {
		Set<Call> calls = this.running.computeIfAbsent(election, (name) -> new HashSet<>());
		Call call = new Call(calls, Thread.currentThread(), false, what, null);
		synchronized (calls) {
			call.onThread = false;
			calls.add(call);
		}
		work.whenComplete((ignored, failure) -> call.ended());
	}

	/**
	 * Whether the innermost call under way on this thread is one of the election's, registered
	 * for {@code what}: a call made within it for the same thing is part of it, not another one.
	 */
	public boolean isUnderWayHere(String election, Object what) {
		Call current = CURRENT.get();
		return current != null && current.runningCalls == this.running.get(election) && current.what.equals(what);
	}

	/** Whether calls are refused: the engine is stopping. */
	public boolean isRefusing() {
		return this.refusing;
	}

	@Override
	public void acceptCalls() {
		this.refusing = false;
	}

	@Override
	public void refuseCalls() {
		this.refusing = true;
	}

	/** Interrupts the calls under way that asked for it. */
	@Override
	public void gateClosed(String election) {
		interruptCalls(election);
	}

	/**
	 * Interrupts the election's calls under way that asked for it.
	 * @return how many calls of the election were under way
	 */
	protected int interruptCalls(String election) {
		Set<Call> calls = this.running.getOrDefault(election, Set.of());
		synchronized (calls) {
			for (Call call : calls) {
				if (call.interruptOnRevoke && call.onThread) {
					call.interrupted = true;
					call.thread.interrupt();
				}
			}
			return calls.size();
		}
	}

	@Override
	public CompletableFuture<Void> whenCallsEnded(String election) {
		Set<Call> calls = this.running.getOrDefault(election, Set.of());
		List<CompletableFuture<Void>> ends = new ArrayList<>();
		synchronized (calls) {
			for (Call call : calls) {
				if (call.end == null) {
					call.end = new CompletableFuture<>();
				}
				ends.add(call.end);
			}
		}
		return CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new));
	}

	@Override
	public List<String> callsUnderWay(String election) {
		Set<Call> calls = this.running.getOrDefault(election, Set.of());
		synchronized (calls) {
			return calls.stream().map(Call::describe).sorted().toList();
		}
	}

	/** A call under way. */
	public static final class Call {

		/** The running calls of the election, this one among them until it ends. */
		private final Set<Call> runningCalls;

		private final Thread thread;

		private final String threadName;

		private final boolean interruptOnRevoke;

		private final Object what;

		/** The call on the same thread this one runs within, {@code null} when none. */
		private final Call enclosing;

		/** Set by a revocation, possibly of another election than that of a nested call. */
		private volatile boolean interrupted;

		/** Whether the call still runs on its thread; guarded by the running calls. */
		private boolean onThread = true;

		/** Made when a drain waits for this call; guarded by the running calls. */
		private CompletableFuture<Void> end;

		private Call(Set<Call> runningCalls, Thread thread, boolean interruptOnRevoke, Object what, Call enclosing) {
			this.runningCalls = runningCalls;
			this.thread = thread;
			this.threadName = thread.getName();
			this.interruptOnRevoke = interruptOnRevoke;
			this.what = what;
			this.enclosing = enclosing;
		}

		/** The call has returned and its work has ended. */
		public void exit() {
			CompletableFuture<Void> awaited;
			synchronized (this.runningCalls) {
				this.runningCalls.remove(this);
				leaveThread();
				awaited = this.end;
			}
			restoreEnclosing();
			if (awaited != null) {
				awaited.complete(null);
			}
		}

		/**
		 * The call has returned to its caller, on the thread that made it, but goes on until
		 * {@link #ended}: it returned a future that has not completed. Revocations no longer
		 * interrupt the thread, which goes on to other work.
		 */
		public void returned() {
			synchronized (this.runningCalls) {
				leaveThread();
			}
			restoreEnclosing();
		}

		/** The work of a call that {@link #returned} early has ended, on whatever thread. */
		public void ended() {
			CompletableFuture<Void> awaited;
			synchronized (this.runningCalls) {
				this.runningCalls.remove(this);
				awaited = this.end;
			}
			if (awaited != null) {
				awaited.complete(null);
			}
		}

		/** Guarded by the running calls, as revocations interrupt under that lock. */
		private void leaveThread() {
			this.onThread = false;
			if (this.interrupted) {
				// Our interrupt must not leak into whatever the pooled thread runs next, but an
				// enclosing call that was interrupted too must still see it.
				Thread.interrupted();
				if (enclosedByInterruptedCall()) {
					Thread.currentThread().interrupt();
				}
			}
		}

		private void restoreEnclosing() {
			if (this.enclosing != null) {
				CURRENT.set(this.enclosing);
			}
			else {
				CURRENT.remove();
			}
		}

		private boolean enclosedByInterruptedCall() {
			for (Call outer = this.enclosing; outer != null; outer = outer.enclosing) {
				if (outer.interrupted) {
					return true;
				}
			}
			return false;
		}

		private String describe() {
			String name = (this.what instanceof Method method)
					? method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()"
					: String.valueOf(this.what);
			return name + " on thread " + this.threadName;
		}

	}

}
