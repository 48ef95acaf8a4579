package io.leaderelection.benchmarks.comparison;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import io.leaderelection.benchmarks.harness.ElectionGroup;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.Timings;

/**
 * One JVM running N elections of one implementation, each alone on its own Lease (so it leads),
 * on one fabric8 client, against the benchmark's API server: the child process of
 * {@link Scale}. Once every election leads and a settling time has passed, it measures over a
 * window its threads, its process CPU time and, after it, its heap after a full GC (and counts
 * every leadership lost from the start to the end of the window), and prints
 * them on lines starting with {@value #PREFIX} for the parent, which counts the requests at the
 * server meanwhile.
 * <p>
 * Arguments: implementation key, number of elections, server port, timings, window seconds.
 */
public final class ScaleChild {

	static final String PREFIX = "@@ ";

	private ScaleChild() {
	}

	public static void main(String[] args) throws Exception {
		String key = args[0];
		int elections = Integer.parseInt(args[1]);
		int port = Integer.parseInt(args[2]);
		Timings timings = Timings.parse(args[3]);
		int windowSeconds = Integer.parseInt(args[4]);
		String clientName = Scale.clientName(key, elections);
		String namespace = "scale-" + key.replace('.', '-') + "-" + elections;
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		say("BASE threads=" + threads.getThreadCount());
		long startedAt = System.nanoTime();
		Implementation implementation = key.equals("ours") ? new OurImplementation()
				: key.equals("fabric8-7.8.0") ? Fabric8Implementation.isolated(key)
						: Fabric8Implementation.onOwnClasspath(key);
		ElectionGroup running = implementation.elections(port, clientName, namespace, elections, timings);
		BooleanSupplier allLead = () -> running.leading() == elections;
		long deadline = System.nanoTime() + 300_000_000_000L;
		while (!allLead.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				say("ERROR not every election led within 300 s");
				Runtime.getRuntime().halt(1);
			}
			Thread.sleep(50);
		}
		say("READY ms=" + (System.nanoTime() - startedAt) / 1_000_000);
		Thread.sleep(timings.retryPeriod().toMillis() * 2);
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		say("WINDOW-START");
		long cpuBefore = os.getProcessCpuTime();
		long windowStart = System.nanoTime();
		int maxThreads = 0;
		int maxElectorThreads = 0;
		Map<String, Integer> groups = new TreeMap<>();
		for (int second = 0; second < windowSeconds; second++) {
			Thread.sleep(1000);
			maxThreads = Math.max(maxThreads, threads.getThreadCount());
			Map<String, Integer> now = threadGroups();
			maxElectorThreads = Math.max(maxElectorThreads, electorThreads(key, now));
			now.forEach((group, count) -> groups.merge(group, count, Math::max));
		}
		long cpu = os.getProcessCpuTime() - cpuBefore;
		long window = System.nanoTime() - windowStart;
		say("WINDOW-END");
		boolean stillLead = allLead.getAsBoolean();
		System.gc();
		Thread.sleep(300);
		System.gc();
		long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
		say("RESULT threads=" + maxThreads + " electorThreads=" + maxElectorThreads + " heapBytes=" + heap
				+ " cpuNanos=" + cpu + " windowNanos=" + window + " allLead=" + stillLead + " losses=" + running.losses());
		say("THREADS " + groups);
		System.out.flush();
		Runtime.getRuntime().halt(0);
	}

	/**
	 * Threads the elector owns. Ours: named leader-election*. fabric8's: the client's executor,
	 * on which its blocking loop runs (threads named "-HASH-pool-N-thread-M": fabric8 names them
	 * after an anonymous class), and the shared scheduler that times the loop
	 * (CachedSingleThreadScheduler-*). The client's executor also runs watch callbacks, for this
	 * project's elector too; those are counted in the JVM's threads only.
	 */
	static int electorThreads(String key, Map<String, Integer> groups) {
		int count = 0;
		for (Map.Entry<String, Integer> group : groups.entrySet()) {
			String name = group.getKey();
			boolean elector = key.equals("ours") ? name.startsWith("leader-election")
					: name.startsWith("CachedSingleThreadScheduler") || name.startsWith("-#-pool-");
			if (elector) {
				count += group.getValue();
			}
		}
		return count;
	}

	/** Live threads by name with digits and hash codes stripped. */
	static Map<String, Integer> threadGroups() {
		Map<String, Integer> groups = new TreeMap<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			groups.merge(thread.getName().replaceAll("[0-9]+", "#"), 1, Integer::sum);
		}
		return groups;
	}

	private static void say(String line) {
		System.out.println(PREFIX + line);
		System.out.flush();
	}

}
