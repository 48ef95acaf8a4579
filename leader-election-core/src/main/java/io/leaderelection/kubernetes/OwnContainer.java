package io.leaderelection.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.leaderelection.store.ContainerInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run of the container this process runs in, read once from its own Pod's status, for the
 * holder to name in its Leases ({@link HolderInstanceAnnotation}). The container is the one named
 * in the configuration, else the Pod's only container; among several unnamed, none is guessed: a
 * sidecar's restart would then prove a live leader ended. Its run is known once the kubelet
 * reports the container running, at a restartCount that is this run's: the status must show it
 * started no earlier than the first process of this container's PID namespace (the status of a
 * run before ours may still be on its way from the kubelet). Until then, Leases name no run, and
 * their holder is waited out as before.
 */
final class OwnContainer {

	private static final Logger logger = LoggerFactory.getLogger(OwnContainer.class);

	/** The API server keeps startedAt to the second, and the boot time this process's start is counted from too. */
	private static final Duration START_TOLERANCE = Duration.ofSeconds(2);

	private final String namespace;

	private final String podName;

	private final String configuredContainer;

	private final Instant containerStartedNoEarlierThan;

	private volatile ContainerInstance instance;

	private volatile Runnable unfollow;

	private volatile boolean done;

	/**
	 * @param configuredContainer the container this process runs in; {@code null} to take the Pod's only one
	 * @param containerStartedNoEarlierThan when the first process of this container's PID namespace
	 * started; {@code null} when unknown
	 */
	OwnContainer(String namespace, String podName, String configuredContainer, Instant containerStartedNoEarlierThan) {
		this.namespace = namespace;
		this.podName = podName;
		this.configuredContainer = configuredContainer;
		this.containerStartedNoEarlierThan = containerStartedNoEarlierThan;
	}

	/** Reads the Pod from now on, until the run is known or cannot be. */
	void start(PodWatches pods) {
		this.unfollow = pods.follow(this.namespace, this.podName, this::seen);
		if (this.done) {
			this.unfollow.run();
		}
	}

	/** The run this process is, without holder; {@code null} while not known. */
	ContainerInstance instance() {
		return this.instance;
	}

	/** When the first process of this PID namespace started (the container's, unless it shares the Pod's). */
	static Instant pidNamespaceStart() {
		return ProcessHandle.of(1).flatMap((init) -> init.info().startInstant()).orElse(null);
	}

	private synchronized void seen(Pod pod) {
		if (this.done || pod == null) {
			return;
		}
		String container = container(pod);
		if (container == null) {
			finish();
			return;
		}
		ContainerStatus status = (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null)
				? pod.getStatus().getContainerStatuses().stream().filter((each) -> container.equals(each.getName()))
					.findFirst().orElse(null)
				: null;
		if (status == null || status.getState() == null || status.getState().getRunning() == null) {
			return;
		}
		Instant startedAt = instant(status.getState().getRunning().getStartedAt());
		if (startedAt == null || (this.containerStartedNoEarlierThan != null
				&& startedAt.isBefore(this.containerStartedNoEarlierThan.minus(START_TOLERANCE)))) {
			// the status of an earlier run, not yet replaced by the kubelet's report of this one
			return;
		}
		int restartCount = (status.getRestartCount() != null) ? status.getRestartCount() : 0;
		this.instance = new ContainerInstance(null, this.namespace, this.podName, pod.getMetadata().getUid(), container,
				restartCount);
		logger.info("This replica runs as {}: the Leases it holds name it, so that followers take over at once "
				+ "when the kubelet reports it ended", this.instance);
		finish();
	}

	private String container(Pod pod) {
		List<Container> containers = (pod.getSpec() != null && pod.getSpec().getContainers() != null)
				? pod.getSpec().getContainers() : List.of();
		if (this.configuredContainer != null) {
			Optional<Container> named = containers.stream()
				.filter((each) -> this.configuredContainer.equals(each.getName()))
				.findFirst();
			if (named.isEmpty()) {
				logger.warn("Pod {}/{} has no container '{}' (leader.election.exit-takeover.container): followers "
						+ "wait out this replica's Leases for their lease duration", this.namespace, this.podName,
						this.configuredContainer);
				return null;
			}
			return this.configuredContainer;
		}
		if (containers.size() != 1) {
			logger.warn("Pod {}/{} has {} containers, and leader.election.exit-takeover.container names none of them: "
					+ "followers wait out this replica's Leases for their lease duration", this.namespace,
					this.podName, containers.size());
			return null;
		}
		return containers.get(0).getName();
	}

	private void finish() {
		this.done = true;
		Runnable unfollowing = this.unfollow;
		if (unfollowing != null) {
			unfollowing.run();
		}
	}

	private static Instant instant(String time) {
		try {
			return (time != null) ? Instant.parse(time) : null;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

}
