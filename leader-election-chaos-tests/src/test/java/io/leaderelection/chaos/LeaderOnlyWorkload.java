package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A process's leader-only work: in each election, a loop of jobs, one after another, each
 * registered with the candidate as the {@code @LeaderOnly} interceptor registers a call, then
 * run only if the gate is open when the job reads it. A job lasts, in work, from
 * {@value #SHORTEST_JOB_MILLIS} ms to {@value #LONGEST_JOB_MILLIS} ms, drawn log-uniformly from
 * the seed, and is made of {@value #STEP_MILLIS} ms steps; a pause of the replica holds the job
 * between steps, as a garbage collection stops every thread. Half the jobs, drawn from the seed,
 * are of each kind:
 * <ul>
 * <li>cooperative (fenced) jobs read the gate before every step and end when it is closed; each
 * step is recorded from just before its gate read to its end, so an overlap of two steps is an
 * overlap of real work. Those must never overlap, whatever the fault;</li>
 * <li>opaque jobs read the gate once, at the start, like an ordinary {@code @LeaderOnly} method,
 * and run to their end; each is recorded from just before its gate read to its end.</li>
 * </ul>
 * Every job is also recorded whole, of either kind, with the fencing token it read as it began
 * (as leader-only code reads it to hand it to the systems it writes to): from just before its
 * first gate read to the end of its work, for a cooperative job its last step.
 */
final class LeaderOnlyWorkload {

	static final long SHORTEST_JOB_MILLIS = 1;

	static final long LONGEST_JOB_MILLIS = 800;

	static final long STEP_MILLIS = 1;

	private static final long STEP = Duration.ofMillis(STEP_MILLIS).toNanos();

	/** Between two jobs of an election: a follower reads the gate this often. */
	private static final long BETWEEN_JOBS = Duration.ofMillis(10).toNanos();

	private final Candidate candidate;

	private final String process;

	private final Pause pause;

	private final LeadershipHistory history;

	/** The job loops and the extra jobs started; guarded by this. */
	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running = true;

	private LeaderOnlyWorkload(Candidate candidate, String process, Pause pause, LeadershipHistory history) {
		this.candidate = candidate;
		this.process = process;
		this.pause = pause;
		this.history = history;
	}

	/**
	 * Starts a loop of jobs in each election.
	 * @param process the process's name in the history
	 * @param seed seeds the length and kind of every job
	 */
	static LeaderOnlyWorkload start(Candidate candidate, String process, List<String> elections, Pause pause,
			LeadershipHistory history, long seed) {
		LeaderOnlyWorkload workload = new LeaderOnlyWorkload(candidate, process, pause, history);
		Random seeds = new Random(seed);
		for (String election : elections) {
			Random random = new Random(seeds.nextLong());
			workload.startThread("jobs-" + election, () -> workload.loop(election, random));
		}
		return workload;
	}

	/**
	 * Runs one extra opaque job in the election, beside the loop, as a request thread calls a
	 * {@code @LeaderOnly} method.
	 * @return completes with whether the job found the gate open and runs, once it has read it
	 */
	CompletableFuture<Boolean> runOpaqueJob(String election, Duration length) {
		CompletableFuture<Boolean> started = new CompletableFuture<>();
		startThread("extra-job-" + election, () -> runOpaque(election, length.toNanos(), started));
		return started;
	}

	/**
	 * The process dies: every job stops where it is, between two steps or within one, and is
	 * recorded up to now.
	 */
	void abort() {
		List<Thread> all;
		synchronized (this) {
			this.running = false;
			all = new ArrayList<>(this.threads);
		}
		all.forEach(Thread::interrupt);
		for (Thread thread : all) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private synchronized void startThread(String name, Runnable work) {
		if (!this.running) {
			return;
		}
		Thread thread = new Thread(work, name + "-" + this.process);
		thread.setDaemon(true);
		this.threads.add(thread);
		thread.start();
	}

	private void loop(String election, Random random) {
		while (this.running) {
			this.pause.awaitResumed();
			boolean cooperative = random.nextBoolean();
			long length = logUniformJobLength(random);
			if (cooperative) {
				runCooperative(election, length);
			}
			else {
				runOpaque(election, length, null);
			}
			LockSupport.parkNanos(BETWEEN_JOBS);
		}
	}

	private void runCooperative(String election, long lengthNanos) {
		Candidate.Call call = this.candidate.enter(election, "a cooperative job of " + election);
		if (call == null) {
			return;
		}
		boolean began = false;
		long startedAt = 0;
		long endedAt = 0;
		Long fencingToken = null;
		try {
			long worked = 0;
			while (worked < lengthNanos) {
				this.pause.awaitResumed();
				long checkedAt = System.nanoTime();
				if (!this.running || !this.candidate.isLeader(election)) {
					return;
				}
				if (!began) {
					began = true;
					startedAt = checkedAt;
					fencingToken = this.candidate.fencingToken(election);
				}
				LockSupport.parkNanos(STEP);
				endedAt = System.nanoTime();
				this.history.stepRan(this.process, election, checkedAt, endedAt);
				worked += endedAt - checkedAt;
			}
		}
		finally {
			call.exit();
			if (began) {
				this.history.jobRan(this.process, election, startedAt, endedAt, fencingToken);
			}
		}
	}

	/** @param started told whether the job runs once it has read the gate; {@code null} when nobody asks */
	private void runOpaque(String election, long lengthNanos, CompletableFuture<Boolean> started) {
		Candidate.Call call = this.candidate.enter(election, "an opaque job of " + election);
		if (call == null) {
			complete(started, false);
			return;
		}
		try {
			long checkedAt = System.nanoTime();
			boolean leading = this.running && this.candidate.isLeader(election);
			complete(started, leading);
			if (!leading) {
				return;
			}
			Long fencingToken = this.candidate.fencingToken(election);
			long worked = 0;
			while (worked < lengthNanos && this.running) {
				this.pause.awaitResumed();
				long stepStart = System.nanoTime();
				LockSupport.parkNanos(STEP);
				worked += System.nanoTime() - stepStart;
			}
			long endedAt = System.nanoTime();
			this.history.opaqueJobRan(this.process, election, checkedAt, endedAt);
			this.history.jobRan(this.process, election, checkedAt, endedAt, fencingToken);
		}
		finally {
			call.exit();
		}
	}

	private static void complete(CompletableFuture<Boolean> started, boolean running) {
		if (started != null) {
			started.complete(running);
		}
	}

	/** From the shortest to the longest job, as likely a few milliseconds as a few hundred. */
	private static long logUniformJobLength(Random random) {
		double millis = SHORTEST_JOB_MILLIS * Math.pow((double) LONGEST_JOB_MILLIS / SHORTEST_JOB_MILLIS,
				random.nextDouble());
		return Math.round(millis * 1_000_000);
	}

}
