package io.leaderelection;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One of the shards an election is split into ({@code leader.election.elections.NAME.shards}).
 * Each shard is an election of its own, on its own Lease, with every guarantee of one election;
 * it is known to the elector, the endpoint, health and metrics by its {@link #name()}.
 * <p>
 * Keys map to shards by {@link #of(String, int)}, a function other languages can compute:
 * <ol>
 * <li>the key's UTF-8 bytes are hashed with 64-bit FNV-1a (offset basis
 * {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3});</li>
 * <li>that hash is mixed with MurmurHash3's 64-bit finalizer: {@code h ^= h >>> 33;
 * h *= 0xff51afd7ed558ccd; h ^= h >>> 33; h *= 0xc4ceb9fe1a85ec53; h ^= h >>> 33};</li>
 * <li>the shard is the jump consistent hash of that value into the shard count (Lamping and Veach,
 * 2014): {@code b = -1, j = 0; while (j < n) { b = j; h = h * 2862933555777941757 + 1;
 * j = (b + 1) * (2^31 / ((h >>> 33) + 1)) }}, in unsigned 64-bit arithmetic and double
 * division.</li>
 * </ol>
 * Going from N to N+1 shards moves only the keys that land on the new shard, about one in N+1.
 *
 * @param election the name of the sharded election
 * @param index the shard's number, from 0
 * @param count how many shards the election is split into
 */
public record Shard(String election, int index, int count) {

	/** The most shards an election may be split into: each is a Lease watched by every replica. */
	public static final int MAX_COUNT = 256;

	public Shard {
		Objects.requireNonNull(election, "election");
		if (count < 1 || count > MAX_COUNT) {
			throw new IllegalArgumentException("A shard count must be between 1 and " + MAX_COUNT + ", was " + count);
		}
		if (index < 0 || index >= count) {
			throw new IllegalArgumentException("Shard index " + index + " is not in [0, " + count + ")");
		}
	}

	/** The shard's name, {@code ELECTION-INDEX-of-COUNT}, e.g. {@code orders-3-of-8}. */
	public String name() {
		return this.election + "-" + this.index + "-of-" + this.count;
	}

	/** The name of this shard's Lease, given the election's Lease name: {@code LEASE-INDEX-of-COUNT}. */
	public String leaseName(String electionLeaseName) {
		return electionLeaseName + "-" + this.index + "-of-" + this.count;
	}

	/** The shard a key belongs to, among {@code count}, by the function described above. */
	public static int of(String key, int count) {
		Objects.requireNonNull(key, "key");
		if (count < 1) {
			throw new IllegalArgumentException("A shard count must be positive, was " + count);
		}
		return jump(hash(key), count);
	}

	/** The key's 64-bit hash: FNV-1a of its UTF-8 bytes, mixed by MurmurHash3's finalizer. */
	public static long hash(String key) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
			hash ^= (b & 0xff);
			hash *= 0x100000001b3L;
		}
		hash ^= hash >>> 33;
		hash *= 0xff51afd7ed558ccdL;
		hash ^= hash >>> 33;
		hash *= 0xc4ceb9fe1a85ec53L;
		hash ^= hash >>> 33;
		return hash;
	}

	private static int jump(long hash, int buckets) {
		long bucket = -1;
		long next = 0;
		while (next < buckets) {
			bucket = next;
			hash = hash * 2862933555777941757L + 1;
			next = (long) ((bucket + 1) * ((double) (1L << 31) / (double) ((hash >>> 33) + 1)));
		}
		return (int) bucket;
	}

}
