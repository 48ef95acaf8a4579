package io.leaderelection.migration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * An interceptor on one replica's client that can hold one of its requests before it is sent,
 * on the thread that sends it, until the test releases it: a slow request, or a pause of the
 * replica, just where the test wants one. Watch requests are never held.
 */
public final class RequestHolds implements Interceptor {

	/** The name it is installed under on a client. */
	static final String NAME = "migration-request-holds";

	private final List<Hold> armed = new CopyOnWriteArrayList<>();

	/**
	 * Holds the next request with the method whose path ends with the given text, e.g.
	 * {@code hold("PUT", "/configmaps/leaders")}.
	 */
	public Hold holdNext(String method, String pathEnd) {
		Hold hold = new Hold(method, pathEnd);
		this.armed.add(hold);
		return hold;
	}

	/** Releases every hold, armed or reached; nothing is held after this. */
	public void releaseAll() {
		this.armed.forEach(Hold::release);
		this.armed.clear();
	}

	@Override
	public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
		String query = request.uri().getRawQuery();
		if (query != null && query.contains("watch=true")) {
			return;
		}
		for (Hold hold : this.armed) {
			if (hold.matches(request) && hold.take()) {
				this.armed.remove(hold);
				hold.hold();
				return;
			}
		}
	}

	/** One request to hold, once. */
	public static final class Hold {

		/** How long a request is held at most, so that a test that forgets it does not hang. */
		private static final Duration LONGEST = Duration.ofSeconds(30);

		private final String method;

		private final String pathEnd;

		private final AtomicBoolean taken = new AtomicBoolean();

		private final CountDownLatch reached = new CountDownLatch(1);

		private final CountDownLatch released = new CountDownLatch(1);

		private Hold(String method, String pathEnd) {
			this.method = method;
			this.pathEnd = pathEnd;
		}

		private boolean matches(HttpRequest request) {
			return this.method.equalsIgnoreCase(request.method()) && request.uri().getPath().endsWith(this.pathEnd);
		}

		private boolean take() {
			return this.released.getCount() > 0 && this.taken.compareAndSet(false, true);
		}

		private void hold() {
			this.reached.countDown();
			try {
				this.released.await(LONGEST.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		/** Whether the request is being held (or was). */
		public boolean isReached() {
			return this.reached.getCount() == 0;
		}

		/** Waits until a request is held; whether one is. */
		public boolean awaitReached(Duration timeout) throws InterruptedException {
			return this.reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}

		/** Lets the request go (or lets none be held, if none was yet). */
		public void release() {
			this.released.countDown();
		}

		@Override
		public String toString() {
			return this.method + " ..." + this.pathEnd;
		}

	}

}
