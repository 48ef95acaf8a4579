package io.leaderelection;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key-to-shard function is a contract other languages compute: its values are pinned here,
 * as computed by an independent implementation of the description in docs/shards.md, and
 * changing the shard count moves only the keys that land on the new shard.
 */
class ShardTests {

	@Test
	void keysMapToTheShardsAnIndependentImplementationOfTheDescribedFunctionGives() {
		assertThat(Shard.hash("order-42")).isEqualTo(0x8e47543c313c6386L);
		assertThat(Shard.hash("")).isEqualTo(0xefd01f60ba992926L);
		assertThat(Shard.hash("été")).isEqualTo(0x4e86b7c4c0feda3bL);
		assertThat(Shard.of("order-42", 8)).isEqualTo(7);
		assertThat(Shard.of("order-43", 8)).isEqualTo(3);
		assertThat(Shard.of("customer/7", 64)).isEqualTo(44);
		assertThat(Shard.of("été", 16)).isEqualTo(12);
		assertThat(Shard.of("12345", 60)).isEqualTo(45);
		assertThat(Shard.of("", 1)).isZero();
	}

	@Test
	void oneMoreShardMovesOnlyTheKeysThatLandOnItAboutOneInNPlusOne() {
		int keys = 20_000;
		for (int shards = 1; shards < 70; shards++) {
			int before = shards;
			int moved = 0;
			for (int key = 0; key < keys; key++) {
				int from = Shard.of("key-" + key, before);
				int to = Shard.of("key-" + key, before + 1);
				if (from != to) {
					assertThat(to).as("key-%d moves from %d of %d shards", key, from, before).isEqualTo(before);
					moved++;
				}
			}
			assertThat((double) moved / keys).as("share moved going from %d to %d shards", before, before + 1)
				.isBetween(0.8 / (before + 1), 1.2 / (before + 1));
		}
	}

	@Test
	void keysSpreadEvenlyOverTheShards() {
		int[] perShard = new int[8];
		IntStream.range(0, 80_000).forEach((key) -> perShard[Shard.of("order-" + key, 8)]++);
		assertThat(IntStream.of(perShard).boxed().toList()).allSatisfy((count) -> assertThat(count).isBetween(9_500, 10_500));
	}

	@Test
	void shardsAreNamedAfterTheirElectionAndTheirLeasesAfterItsLease() {
		Shard shard = new Shard("orders", 3, 8);
		assertThat(shard.name()).isEqualTo("orders-3-of-8");
		assertThat(shard.leaseName("shop-orders")).isEqualTo("shop-orders-3-of-8");
	}

	@Test
	void aShardCountOutsideOneToTheMaximumIsRefusedNamingTheBounds() {
		assertThatThrownBy(() -> new Shard("orders", 0, 0)).hasMessage("A shard count must be between 1 and 256, was 0");
		assertThatThrownBy(() -> new Shard("orders", 0, 257)).hasMessageContaining("between 1 and 256, was 257");
		assertThatThrownBy(() -> new Shard("orders", 8, 8)).hasMessage("Shard index 8 is not in [0, 8)");
	}

}
