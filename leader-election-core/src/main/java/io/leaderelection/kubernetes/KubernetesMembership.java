package io.leaderelection.kubernetes;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.leaderelection.Shard;
import io.leaderelection.store.MembershipStore;

/**
 * The members of balanced groups as Leases of their own, one per member and group, named
 * {@code GROUP-member-HASH} and labelled {@value LeaseLabels#MEMBER_OF}{@code =GROUP}: the holder is
 * the member's identity, and each renewal writes a new renewTime, so that the record's
 * resourceVersion changes. A member leaving writes its record without holder. Records that no
 * one renewed for {@link #FORGOTTEN_AFTER} on this replica's clock, or left that long ago, are
 * deleted at that version, so that the records of replicas gone (each Pod of a Deployment has a
 * new name) do not pile up.
 * <p>
 * Members are followed with an informer on the label: it lists and then watches, and lists again
 * when its watch ends. This needs {@code list} and {@code watch} on {@code leases}, and
 * {@code delete} for the records of members gone.
 */
final class KubernetesMembership implements MembershipStore {

	/** How long a record may stay unchanged before any member deletes it. */
	static final Duration FORGOTTEN_AFTER = Duration.ofMinutes(10);

	private final KubernetesClient client;

	private final Executor blockingCalls;

	private final String namespace;

	private final long forgottenAfterNanos;

	/** The records each member of this process wrote last, by Lease name. */
	private final Map<String, Lease> written = new ConcurrentHashMap<>();

	/** The order in which the writes of each record were asked for, by Lease name. */
	private final Map<String, WriteOrder> writeOrders = new ConcurrentHashMap<>();

	/** The informers running, by group. */
	private final Map<String, SharedIndexInformer<Lease>> informers = new ConcurrentHashMap<>();

	/** When this replica first saw each record's current version, by Lease name. */
	private final Map<String, SeenVersion> seen = new ConcurrentHashMap<>();

	KubernetesMembership(KubernetesClient client, Executor blockingCalls, String namespace) {
		this(client, blockingCalls, namespace, FORGOTTEN_AFTER);
	}

	KubernetesMembership(KubernetesClient client, Executor blockingCalls, String namespace, Duration forgottenAfter) {
		this.client = client;
		this.blockingCalls = blockingCalls;
		this.namespace = namespace;
		this.forgottenAfterNanos = forgottenAfter.toNanos();
	}

	@Override
	public String describe() {
		return "the member Leases of namespace " + this.namespace;
	}

	@Override
	public CompletableFuture<Void> renew(String group, String member, Duration timeout) {
		Runnable write = inOrder(group, member, member);
		return call(() -> {
			write.run();
			forgetGone(group);
		}, timeout);
	}

	@Override
	public CompletableFuture<Void> leave(String group, String member, Duration timeout) {
		return call(inOrder(group, member, null), timeout);
	}

	/**
	 * The write of the member's record, in the order it is asked for now: calls run on a pool,
	 * and a renewal asked for before a leave but run after it would name the member again.
	 * A write asked for before one already made is dropped.
	 */
	private Runnable inOrder(String group, String member, String holder) {
		WriteOrder order = this.writeOrders.computeIfAbsent(recordName(group, member), (name) -> new WriteOrder());
		long ticket = order.ask();
		return () -> order.write(ticket, () -> write(group, member, holder));
	}

	@Override
	public Following follow(String group, Consumer<Map<String, String>> members, Consumer<Throwable> failed) {
		CompletableFuture<SharedIndexInformer<Lease>> started = CompletableFuture.supplyAsync(() -> {
			SharedIndexInformer<Lease> informer = this.client.leases()
				.inNamespace(this.namespace)
				.withLabel(LeaseLabels.MEMBER_OF, LeaseLabels.value(group))
				.runnableInformer(0);
			informer.addEventHandler(new ResourceEventHandler<>() {

				@Override
				public void onAdd(Lease lease) {
					members.accept(live(informer));
				}

				@Override
				public void onUpdate(Lease before, Lease after) {
					members.accept(live(informer));
				}

				@Override
				public void onDelete(Lease lease, boolean finalStateUnknown) {
					members.accept(live(informer));
				}

			});
			informer.start().toCompletableFuture().join();
			this.informers.put(group, informer);
			members.accept(live(informer));
			return informer;
		}, this.blockingCalls);
		started.whenComplete((informer, failure) -> {
			if (failure != null) {
				failed.accept((failure.getCause() != null) ? failure.getCause() : failure);
			}
		});
		return () -> started.thenAccept((informer) -> {
			this.informers.remove(group, informer);
			informer.stop();
		});
	}

	/** The members whose records name a holder, with the records' versions. */
	private static Map<String, String> live(SharedIndexInformer<Lease> informer) {
		Map<String, String> members = new HashMap<>();
		for (Lease lease : informer.getStore().list()) {
			String holder = (lease.getSpec() != null) ? lease.getSpec().getHolderIdentity() : null;
			if (holder != null && !holder.isEmpty()) {
				members.put(holder, lease.getMetadata().getResourceVersion());
			}
		}
		return members;
	}

	/**
	 * Writes the member's record over the version it wrote last; creates it when missing, and
	 * reads it first when someone else wrote it since (a restarted process of the same identity).
	 */
	private void write(String group, String member, String holder) {
		String name = recordName(group, member);
		Lease record = new LeaseBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(this.namespace)
			.addToLabels(LeaseLabels.MEMBER_OF, LeaseLabels.value(group))
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holder)
			.withRenewTime(ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS))
			.endSpec()
			.build();
		Lease last = this.written.get(name);
		try {
			if (last == null) {
				this.written.put(name, this.client.leases().resource(record).create());
				return;
			}
			record.getMetadata().setResourceVersion(last.getMetadata().getResourceVersion());
			this.written.put(name, this.client.leases().resource(record).update());
		}
		catch (KubernetesClientException ex) {
			if (ex.getCode() != 404 && ex.getCode() != 409) {
				throw ex;
			}
			Lease stored = this.client.leases().inNamespace(this.namespace).withName(name).get();
			record.getMetadata().setResourceVersion((stored != null) ? stored.getMetadata().getResourceVersion() : null);
			this.written.put(name, (stored != null) ? this.client.leases().resource(record).update()
					: this.client.leases().resource(record).create());
		}
	}

	/** Deletes, at the version seen, the records of the group left unchanged for too long. */
	private void forgetGone(String group) {
		SharedIndexInformer<Lease> informer = this.informers.get(group);
		if (informer == null) {
			return;
		}
		long now = System.nanoTime();
		for (Lease lease : informer.getStore().list()) {
			String name = lease.getMetadata().getName();
			String version = lease.getMetadata().getResourceVersion();
			SeenVersion known = this.seen.compute(name,
					(key, before) -> (before != null && before.version.equals(version)) ? before
							: new SeenVersion(version, now));
			if (now - known.since >= this.forgottenAfterNanos && !this.written.containsKey(name)) {
				try {
					this.client.leases().resource(lease).lockResourceVersion(version).delete();
				}
				catch (KubernetesClientException ex) {
					// gone already, renewed meanwhile, or not ours to delete: looked at again later
				}
				this.seen.remove(name);
			}
		}
	}

	/** The record's name: the group, then a hash of the identity, which may not fit a name. */
	static String recordName(String group, String member) {
		String suffix = "-member-" + Long.toHexString(Shard.hash(member));
		String prefix = group.substring(0, Math.min(group.length(), 253 - suffix.length()));
		return prefix + suffix;
	}

	private CompletableFuture<Void> call(Runnable call, Duration timeout) {
		return CompletableFuture.runAsync(call, this.blockingCalls).orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	private record SeenVersion(String version, long since) {
	}

	/**
	 * The writes of one record: each asked for with a ticket, made only if no later one was made.
	 * Asking takes no lock: it runs on the engine's scheduler, which must never wait for a write
	 * that hangs on the network while holding the lock that orders the writes.
	 */
	private static final class WriteOrder {

		private final AtomicLong asked = new AtomicLong();

		private long written;

		long ask() {
			return this.asked.incrementAndGet();
		}

		synchronized void write(long ticket, Runnable write) {
			if (ticket < this.written) {
				return;
			}
			write.run();
			this.written = ticket;
		}

	}

}
