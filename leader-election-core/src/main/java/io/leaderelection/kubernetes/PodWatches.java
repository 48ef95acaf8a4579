package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches of single Pods, one per Pod however many follow it (every election held by one replica
 * names the same Pod): each follower is told the Pod as last seen at once, then every change,
 * {@code null} while there is no such Pod. A watch that ends is opened again after a pause that
 * doubles up to half a minute, so that a Role without the permission costs a request now and
 * then; that refusal is logged once.
 */
final class PodWatches {

	private static final Logger logger = LoggerFactory.getLogger(PodWatches.class);

	private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);

	private static final Duration LONGEST_PAUSE = Duration.ofSeconds(30);

	private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

	private final KubernetesClient client;

	private final ApiCalls calls;

	private final Executor watchOpener;

	private final Map<List<String>, Shared> watches = new HashMap<>();

	private volatile boolean refusalLogged;

	/** Set once the elector's client closes: watches end and are not opened again. */
	private volatile boolean closed;

	PodWatches(KubernetesClient client, ApiCalls calls, Executor watchOpener) {
		this.client = client;
		this.calls = calls;
		this.watchOpener = watchOpener;
	}

	/** Follows the Pod until the returned action is run. */
	Runnable follow(String namespace, String name, Consumer<Pod> listener) {
		Shared shared;
		boolean open;
		boolean seen;
		Pod last;
		synchronized (this) {
			List<String> key = List.of(namespace, name);
			shared = this.watches.get(key);
			open = shared == null;
			if (open) {
				shared = new Shared(key);
				this.watches.put(key, shared);
			}
			shared.listeners.add(listener);
			seen = shared.seen;
			last = shared.pod;
		}
		if (open) {
			Shared opening = shared;
			this.watchOpener.execute(() -> opening.open(FIRST_PAUSE));
		}
		else if (seen) {
			listener.accept(last);
		}
		Shared followed = shared;
		return () -> unfollow(followed, listener);
	}

	/** Opens no watch from now on: the client they are opened on is closing. */
	void close() {
		this.closed = true;
	}

	private void unfollow(Shared shared, Consumer<Pod> listener) {
		Watch closing = null;
		synchronized (this) {
			if (shared.listeners.remove(listener) && shared.listeners.isEmpty()) {
				this.watches.remove(shared.key);
				shared.closed = true;
				closing = shared.watch;
			}
		}
		if (closing != null) {
			closing.close();
		}
	}

	/** One Pod's watch and what it last told. */
	private final class Shared {

		private final List<String> key;

		private final List<Consumer<Pod>> listeners = new ArrayList<>();

		private Pod pod;

		/** Whether the Pod has been seen, or seen missing, yet. */
		private boolean seen;

		/** Whether the watch told anything since it was opened, which a read must not undo. */
		private boolean watchTold;

		private Watch watch;

		private boolean closed;

		Shared(List<String> key) {
			this.key = key;
		}

		void open(Duration pause) {
			synchronized (PodWatches.this) {
				if (this.closed || PodWatches.this.closed) {
					return;
				}
				this.watchTold = false;
			}
			Watch opened;
			try {
				opened = PodWatches.this.client.pods()
					.inNamespace(this.key.get(0))
					.withName(this.key.get(1))
					.watch(new Watcher<Pod>() {
						@Override
						public void eventReceived(Action action, Pod pod) {
							tell((action == Action.DELETED) ? null : pod, true);
						}

						@Override
						public void onClose(WatcherException cause) {
							if (cause != null) {
								openLater(FIRST_PAUSE);
							}
						}
					});
			}
			catch (RuntimeException ex) {
				if (PodWatches.this.closed) {
					return;
				}
				if (!PodWatches.this.refusalLogged) {
					PodWatches.this.refusalLogged = true;
					logger.warn("Cannot watch Pod {}/{} ({}): without that, exit takeover waits out a crashed leader's "
							+ "Lease for its lease duration (and, for this replica's own Pod, its Leases name no run); "
							+ "grant 'get' and 'watch' on 'pods' (docs/operations.md#rbac)", this.key.get(0),
							this.key.get(1), ex.toString());
				}
				openLater(pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2));
				return;
			}
			synchronized (PodWatches.this) {
				if (!this.closed) {
					this.watch = opened;
					opened = null;
				}
			}
			if (opened != null) {
				opened.close();
				return;
			}
			// what the Pod was before the watch told anything: a watch from now tells only changes
			PodWatches.this.calls
				.read(PodWatches.this.calls.coreObjectUri(this.key.get(0), "pods", this.key.get(1)),
						"Pod " + this.key.get(0) + "/" + this.key.get(1), Pod.class, READ_TIMEOUT)
				.whenComplete((pod, failure) -> {
					if (failure == null) {
						tell(pod, false);
					}
				});
		}

		private void openLater(Duration pause) {
			Executor later = CompletableFuture.delayedExecutor(pause.toMillis(), TimeUnit.MILLISECONDS,
					PodWatches.this.watchOpener);
			later.execute(() -> open(pause));
		}

		private void tell(Pod pod, boolean fromWatch) {
			List<Consumer<Pod>> told;
			synchronized (PodWatches.this) {
				if (this.closed || (!fromWatch && this.watchTold)) {
					return;
				}
				this.watchTold |= fromWatch;
				this.pod = pod;
				this.seen = true;
				told = List.copyOf(this.listeners);
			}
			told.forEach((listener) -> listener.accept(pod));
		}

	}

}
