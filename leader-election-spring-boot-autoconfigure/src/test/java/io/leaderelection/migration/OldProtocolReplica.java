package io.leaderelection.migration;

import java.lang.reflect.Field;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.cloud.kubernetes.commons.leader.Leader;
import org.springframework.cloud.kubernetes.commons.leader.LeaderInitiator;
import org.springframework.cloud.kubernetes.commons.leader.LeaderProperties;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeaderRecordWatcher;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeadershipController;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8PodReadinessWatcher;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnFailedToAcquireMutexEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * One replica of an application on spring-cloud-kubernetes 3.3's fabric8 ConfigMap leader
 * election (the old protocol), wired as {@code Fabric8LeaderAutoConfiguration} wires it, from
 * the same classes: a {@link DefaultCandidate} whose id is the Pod's name and whose role is
 * {@code spring.cloud.kubernetes.leader.role}, a {@link Fabric8LeadershipController}, a
 * {@link Fabric8LeaderRecordWatcher} on the ConfigMap, a {@link Fabric8PodReadinessWatcher} on
 * its own Pod, and the {@link LeaderInitiator} that runs them, with its own fabric8 client. Its
 * leadership is what the {@link DefaultLeaderEventPublisher} publishes ({@link OnGrantedEvent},
 * {@link OnRevokedEvent}), recorded in a {@link LeadershipIntervals} shared by every replica of
 * the test.
 * <p>
 * What is added: a fence around the controller's {@code update()} and {@code revoke()}, so that
 * {@link #kill()} can end the replica as a crash would, at an instant, without the graceful
 * stop's removal of its key (once {@code kill()} returns, the replica sends nothing more, and
 * publishes nothing more); {@link RequestHolds} on its client, so that a test can hold one of its
 * requests where it wants a slow one; and a time limit on each step of stopping it, since the
 * old protocol can deadlock (see {@link #isStuck()}), after which its stop never returns.
 * <p>
 * Its name (the Pod's) is its holder name in the {@link LeadershipIntervals}: one process per
 * name.
 */
public final class OldProtocolReplica implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(OldProtocolReplica.class);

	/** How long stopping waits for a step that may be blocked. */
	private static final Duration WAIT = Duration.ofSeconds(5);

	/** How long a check may take before the replica is deemed stuck: many round trips. */
	private static final Duration STUCK_AFTER = Duration.ofSeconds(3);

	/** How long it waits once the replica is known to be stuck. */
	private static final Duration STUCK_WAIT = Duration.ofMillis(200);

	private final Settings settings;

	private final KubernetesClient client;

	private final RequestHolds holds;

	private final LeadershipIntervals intervals;

	private final FencedController controller;

	private final Fabric8LeaderRecordWatcher recordWatcher;

	private final Fabric8PodReadinessWatcher hostPodWatcher;

	private final LeaderInitiator initiator;

	private volatile boolean leading;

	private volatile boolean started;

	private volatile boolean ended;

	private volatile boolean stuck;

	private volatile ScheduledExecutorService scheduler;

	private final AtomicInteger grants = new AtomicInteger();

	private final AtomicInteger revocations = new AtomicInteger();

	private final AtomicInteger failedAcquisitions = new AtomicInteger();

	/**
	 * @param client the replica's own client, whose default namespace is the replica's: the old
	 * protocol reads Pods there; the replica closes it when it stops or is killed
	 * @param holds the holds installed on the client, or {@code null} if none are
	 * @param intervals where the replica reports its terms
	 */
	public OldProtocolReplica(Settings settings, KubernetesClient client, RequestHolds holds,
			LeadershipIntervals intervals) {
		this.settings = settings;
		this.client = client;
		this.holds = holds;
		this.intervals = intervals;
		LeaderProperties properties = settings.toLeaderProperties();
		// as Fabric8LeaderAutoConfiguration.candidate(): DefaultCandidate(hostname, role)
		DefaultCandidate candidate = new DefaultCandidate(settings.podName(), properties.getRole());
		DefaultLeaderEventPublisher publisher = new DefaultLeaderEventPublisher(this::onEvent);
		this.controller = new FencedController(candidate, properties, publisher, client);
		this.recordWatcher = new Fabric8LeaderRecordWatcher(properties, this.controller, client);
		this.hostPodWatcher = new Fabric8PodReadinessWatcher(candidate.getId(), client, this.controller);
		this.initiator = new LeaderInitiator(properties, this.controller, this.recordWatcher, this.hostPodWatcher);
	}

	/** A replica in its Pod, on its own client from the server, whose requests can be held. */
	public static OldProtocolReplica create(MigrationApiServer server, Settings settings,
			LeadershipIntervals intervals) {
		RequestHolds holds = new RequestHolds();
		return new OldProtocolReplica(settings, server.newClient(settings.namespace(), holds, settings.podName()), holds,
				intervals);
	}

	/** What holds its requests; from {@link #create}, never {@code null}. */
	public RequestHolds requests() {
		if (this.holds == null) {
			throw new IllegalStateException(name() + " was given a client without holds");
		}
		return this.holds;
	}

	/**
	 * Starts it as the application context does: watches on the ConfigMap and on its own Pod,
	 * and a check every update period, the first one update period from now.
	 */
	public void start() {
		if (this.ended) {
			throw new IllegalStateException(name() + " has ended; replicas do not restart, create another");
		}
		this.started = true;
		this.initiator.start();
		this.scheduler = initiatorsScheduler();
	}

	/**
	 * Stops it as the application context does on shutdown ({@code LeaderInitiator.stop()}): its
	 * checks stop (one under way finishes), its watches stop, then, if the ConfigMap's key names
	 * it, it removes its key and publishes {@code OnRevokedEvent}. Then its client is closed. Does
	 * nothing if it has ended already.
	 * <p>
	 * If the replica is {@linkplain #wasStuck() stuck}, {@code LeaderInitiator.stop()} would never
	 * return (its revoke waits for the controller's lock forever, as an application's shutdown
	 * would until the kubelet kills it): the replica is then ended as by {@link #kill()}, after a
	 * few seconds, with its key left as it is.
	 */
	public void stop() {
		if (this.ended) {
			return;
		}
		if (this.holds != null) {
			this.holds.releaseAll();
		}
		if (this.started && !bounded("LeaderInitiator.stop()", this.initiator::stop)) {
			this.stuck = true;
		}
		end();
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Ends it as a crash would: no more checks, watches or requests, and the ConfigMap left as it
	 * is. A check under way when it is called finishes first, as if the process had died just
	 * after it; a term still open ends now.
	 */
	public void kill() {
		if (this.ended) {
			return;
		}
		end();
	}

	private void end() {
		this.ended = true;
		if (this.holds != null) {
			this.holds.releaseAll();
		}
		if (!this.controller.fence()) {
			this.stuck = true;
		}
		this.leading = false;
		this.intervals.ended(name());
		if (this.stuck) {
			logger.warn("{}: its controller is stuck (deadlocked); its threads stay, blocked for good. The check:{}",
					name(), this.controller.describeCheck());
		}
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
		}
		// each of these may wait for a lock a stuck thread holds
		bounded("stopping the watch on the ConfigMap", this.recordWatcher::stop);
		bounded("stopping the watch on its Pod", this.hostPodWatcher::stop);
		bounded("stopping the watch on the leader's Pod", this.controller::stopLeaderReadinessWatcher);
		this.client.close();
	}

	/**
	 * Runs the action on a thread of its own and waits for it a few seconds, or less once the
	 * replica is known to be stuck.
	 * @return whether it finished
	 */
	private boolean bounded(String what, Runnable action) {
		Thread thread = new Thread(action, name() + "-" + what);
		thread.setDaemon(true);
		thread.start();
		try {
			thread.join(isStuck() ? STUCK_WAIT.toMillis() : WAIT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (thread.isAlive()) {
			logger.warn("{}: {} did not finish; left blocked", name(), what);
			return false;
		}
		return true;
	}

	/** The initiator keeps its scheduler to itself, and shuts it down (not now) only in stop(). */
	private ScheduledExecutorService initiatorsScheduler() {
		try {
			Field field = LeaderInitiator.class.getDeclaredField("scheduledExecutorService");
			field.setAccessible(true);
			return (ScheduledExecutorService) field.get(this.initiator);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("{}: cannot reach its checks' scheduler; killing it will leave it", name(), ex);
			return null;
		}
	}

	private void onEvent(Object event) {
		if (!(event instanceof AbstractLeaderEvent leaderEvent)) {
			return;
		}
		if (leaderEvent instanceof OnGrantedEvent) {
			this.leading = true;
			this.grants.incrementAndGet();
			this.intervals.granted(name());
			logger.info("{}: granted", name());
		}
		else if (leaderEvent instanceof OnRevokedEvent) {
			this.leading = false;
			this.revocations.incrementAndGet();
			this.intervals.revoked(name());
			logger.info("{}: revoked", name());
		}
		else if (leaderEvent instanceof OnFailedToAcquireMutexEvent) {
			this.failedAcquisitions.incrementAndGet();
		}
	}

	/** Whether it leads, as the events it published tell; never after it was killed or stopped. */
	public boolean isLeader() {
		return this.leading;
	}

	/**
	 * Who it takes for the leader, as its controller saw it at its last check that got that far
	 * (its {@code localLeader}): itself, another Pod's name, or {@code null} if none. A follower
	 * watches that Pod's readiness.
	 */
	public String leaderSeen() {
		return this.controller.localLeaderId();
	}

	/** Its Pod's name, which is its candidate id and what it writes into the ConfigMap. */
	public String name() {
		return this.settings.podName();
	}

	public Settings settings() {
		return this.settings;
	}

	/** How many times it published {@code OnGrantedEvent}. */
	public int grants() {
		return this.grants.get();
	}

	/** How many times it published {@code OnRevokedEvent}. */
	public int revocations() {
		return this.revocations.get();
	}

	/** How many times it failed to write the ConfigMap when acquiring (publishFailedEvents is on). */
	public int failedAcquisitions() {
		return this.failedAcquisitions.get();
	}

	/**
	 * Whether, when it was killed or stopped, a check under way had not finished after a few
	 * seconds, or its stop did not: the replica's controller is deadlocked, for good, as
	 * {@link #isStuck()} tells.
	 */
	public boolean wasStuck() {
		return this.stuck;
	}

	/**
	 * Whether its controller is deadlocked, as the JVM finds it, or a check has been under way
	 * for more than a few seconds (which a request held on purpose also makes it).
	 * spring-cloud-kubernetes 3.3's controller, when its leader changes, holds its lock while it
	 * stops the watcher on the former leader's Pod, which takes the watcher's lock; that watcher,
	 * on a readiness change of that Pod, holds its own lock while it waits for the controller's.
	 * Once deadlocked, the replica neither checks, nor follows, nor steps down, nor stops: it
	 * keeps what it believed last.
	 */
	public boolean isStuck() {
		return this.stuck || this.controller.isDeadlocked() || this.controller.busyFor() > STUCK_AFTER.toNanos();
	}

	/**
	 * Whether a thread waits for the controller while a check is under way, e.g. a watcher's
	 * event.
	 */
	public boolean hasChecksWaiting() {
		return this.controller.hasWaiters();
	}

	/** Whether it was killed or stopped. */
	public boolean hasEnded() {
		return this.ended;
	}

	@Override
	public String toString() {
		return name() + (this.ended ? " (ended)" : this.leading ? " (leader)" : "");
	}

	/**
	 * What a replica is told, as {@code spring.cloud.kubernetes.leader.*} and its Pod.
	 * @param namespace the namespace of its Pod, its client and the ConfigMap
	 * @param configMapName {@code spring.cloud.kubernetes.leader.config-map-name}, {@code leaders}
	 * by default
	 * @param role {@code spring.cloud.kubernetes.leader.role}; none by default, when
	 * {@link DefaultCandidate} makes it {@code leader}
	 * @param updatePeriod {@code spring.cloud.kubernetes.leader.update-period}, 60 s by default
	 * @param podName its Pod's name ({@code HOSTNAME}), its candidate id
	 */
	public record Settings(String namespace, String configMapName, String role, Duration updatePeriod,
			String podName) {

		/** The defaults of spring-cloud-kubernetes but for a short update period. */
		public static Settings of(String namespace, String podName) {
			return new Settings(namespace, "leaders", null, Duration.ofMillis(300), podName);
		}

		public Settings withConfigMapName(String configMapName) {
			return new Settings(this.namespace, configMapName, this.role, this.updatePeriod, this.podName);
		}

		public Settings withRole(String role) {
			return new Settings(this.namespace, this.configMapName, role, this.updatePeriod, this.podName);
		}

		public Settings withUpdatePeriod(Duration updatePeriod) {
			return new Settings(this.namespace, this.configMapName, this.role, updatePeriod, this.podName);
		}

		public Settings withPodName(String podName) {
			return new Settings(this.namespace, this.configMapName, this.role, this.updatePeriod, podName);
		}

		/** The role as the old protocol uses it: DefaultCandidate's {@code leader} when none. */
		public String effectiveRole() {
			return (this.role == null || this.role.isBlank()) ? "leader" : this.role;
		}

		/** The ConfigMap's data key that names the leader: {@code leader.id.<role>}. */
		public String leaderKey() {
			return "leader.id." + effectiveRole();
		}

		LeaderProperties toLeaderProperties() {
			LeaderProperties properties = new LeaderProperties();
			properties.setNamespace(this.namespace);
			properties.setConfigMapName(this.configMapName);
			properties.setRole(this.role);
			properties.setUpdatePeriod(this.updatePeriod);
			properties.setPublishFailedEvents(true);
			return properties;
		}

	}

	/**
	 * The real controller, behind a fence: once fenced, neither its periodic check, nor a watch
	 * event, nor a revoke runs any more, and fencing waits for one under way to finish.
	 */
	private static final class FencedController extends Fabric8LeadershipController {

		/** How long fencing waits for a check under way: a few round trips, on a busy machine. */
		private static final Duration FENCE_WAIT = Duration.ofSeconds(3);

		private final ReentrantLock fence = new ReentrantLock();

		private volatile boolean fenced;

		/** When the check under way began ({@link System#nanoTime()}); 0 when none is. */
		private volatile long busySince;

		/** The thread of the check under way; {@code null} when none is. */
		private volatile Thread owner;

		FencedController(DefaultCandidate candidate, LeaderProperties properties,
				DefaultLeaderEventPublisher publisher, KubernetesClient client) {
			super(candidate, properties, publisher, client);
		}

		@Override
		public void update() {
			if (this.fenced) {
				return;
			}
			this.fence.lock();
			runFenced(super::update);
		}

		/** On the stopping thread: it gives up if a stuck check holds the controller. */
		@Override
		public void revoke() {
			if (this.fenced) {
				return;
			}
			try {
				if (!this.fence.tryLock(FENCE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
					logger.warn("{}: a check under way did not finish in time; not revoking", getCandidateId());
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			runFenced(super::revoke);
		}

		private String getCandidateId() {
			return this.candidate.getId();
		}

		/** Runs the action, the fence held, unless fenced meanwhile; releases the fence. */
		private void runFenced(Runnable action) {
			this.busySince = System.nanoTime();
			this.owner = Thread.currentThread();
			try {
				if (!this.fenced) {
					action.run();
				}
			}
			finally {
				this.owner = null;
				this.busySince = 0;
				this.fence.unlock();
			}
		}

		/** Read once no check is under way (when none is stuck), as the last one left it. */
		String localLeaderId() {
			boolean locked = false;
			try {
				locked = this.fence.tryLock(FENCE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			try {
				return getLocalLeader().map(Leader::getId).orElse(null);
			}
			finally {
				if (locked) {
					this.fence.unlock();
				}
			}
		}

		boolean hasWaiters() {
			return this.fence.hasQueuedThreads();
		}

		/** Whether the JVM finds the thread of the check under way deadlocked. */
		boolean isDeadlocked() {
			Thread thread = this.owner;
			if (thread == null) {
				return false;
			}
			long[] deadlocked = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
			return deadlocked != null && Arrays.stream(deadlocked).anyMatch((id) -> id == thread.getId());
		}

		/** For messages: the thread of the check under way, and where it is. */
		String describeCheck() {
			Thread thread = this.owner;
			if (thread == null) {
				return " none";
			}
			StringBuilder text = new StringBuilder(" ").append(thread.getName());
			for (StackTraceElement element : thread.getStackTrace()) {
				text.append(System.lineSeparator()).append("\tat ").append(element);
			}
			return text.toString();
		}

		/** How long the check under way has run, in nanoseconds; 0 when none is. */
		long busyFor() {
			long since = this.busySince;
			return (since == 0) ? 0 : System.nanoTime() - since;
		}

		/**
		 * Lets no check start any more, and waits for one under way to finish.
		 * @return whether none was under way or it finished; {@code false} if it is stuck
		 */
		boolean fence() {
			this.fenced = true;
			if (isDeadlocked()) {
				return false;
			}
			try {
				if (this.fence.tryLock(FENCE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
					this.fence.unlock();
					return true;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return false;
		}

		/** The watcher on the leader's Pod, which the controller starts and stops by itself. */
		void stopLeaderReadinessWatcher() {
			if (this.leaderReadinessWatcher != null) {
				this.leaderReadinessWatcher.stop();
			}
		}

	}

}
