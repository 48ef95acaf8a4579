package io.leaderelection.autoconfigure;

import java.util.regex.Pattern;
import java.net.InetAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;
import io.leaderelection.autoconfigure.LeaderElectionProperties.OnLost;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Tests for {@link LeaderElectionSettingsResolver}, with a fake environment and a temporary
 * service-account namespace file.
 */
class LeaderElectionSettingsResolverTests {

	private static final String SUFFIX = "_[0-9a-f]{8}";

	@TempDir
	Path temp;

	private final Map<String, String> environment = new HashMap<>();

	private Path serviceAccountNamespace;

	private LeaderElectionProperties properties;

	@BeforeEach
	void setUp() {
		this.serviceAccountNamespace = this.temp.resolve("serviceaccount").resolve("namespace");
		this.properties = new LeaderElectionProperties();
	}

	private LeaderElectionSettings resolve(String applicationName, String clientNamespace) {
		return new LeaderElectionSettingsResolver(this.environment::get, this.serviceAccountNamespace)
			.resolve(this.properties, applicationName, () -> clientNamespace);
	}

	private LeaderElectionSettings resolve() {
		return resolve("orders", "client-ns");
	}

	private void writeServiceAccountNamespace(String content) throws IOException {
		Files.createDirectories(this.serviceAccountNamespace.getParent());
		Files.writeString(this.serviceAccountNamespace, content);
	}

	private InvalidLeaderElectionPropertyException invalid(String applicationName) {
		return assertThrows(InvalidLeaderElectionPropertyException.class,
				() -> resolve(applicationName, "client-ns"));
	}

	private InvalidLeaderElectionPropertyException invalid() {
		return invalid("orders");
	}

	private static LeaderElectionProperties.Election election() {
		return new LeaderElectionProperties.Election();
	}

	// ---- defaults

	@Test
	void oneDefaultElectionWithClientGoTimings() {
		LeaderElectionSettings settings = resolve();
		assertThat(settings.electionNames()).containsExactly("default");
		ElectionSettings election = settings.elections().get(0);
		assertThat(election.name()).isEqualTo("default");
		assertThat(election.leaseName()).isEqualTo("orders-leader");
		assertThat(election.namespace()).isEqualTo("client-ns");
		assertThat(election.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
		assertThat(election.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
		assertThat(election.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
		assertThat(election.renewPeriod()).isEqualTo(Duration.ofSeconds(5));
		assertThat(settings.releaseOnShutdown()).isTrue();
		assertThat(settings.onLost()).isEqualTo(OnLost.REJOIN);
	}

	@Test
	void leaseNameWithoutApplicationNameIsApplicationLeader() {
		assertThat(resolve(null, null).elections().get(0).leaseName()).isEqualTo("application-leader");
	}

	@Test
	void leaseNameWithBlankApplicationNameIsApplicationLeader() {
		assertThat(resolve("  ", null).elections().get(0).leaseName()).isEqualTo("application-leader");
	}

	@Test
	void blankLeaseNamePropertyMeansDerived() {
		this.properties.setLeaseName(" ");
		assertThat(resolve().elections().get(0).leaseName()).isEqualTo("orders-leader");
	}

	// ---- identity

	@Test
	void podNameComesFirst() {
		this.environment.put("POD_NAME", "orders-7d9f-abcde");
		this.environment.put("HOSTNAME", "some-host");
		assertThat(resolve().identity()).matches("orders-7d9f-abcde" + SUFFIX);
	}

	@Test
	void hostnameWhenNoPodName() {
		this.environment.put("HOSTNAME", "some-host");
		assertThat(resolve().identity()).matches("some-host" + SUFFIX);
	}

	@Test
	void hostnameWhenPodNameIsBlank() {
		this.environment.put("POD_NAME", "  ");
		this.environment.put("HOSTNAME", "some-host");
		assertThat(resolve().identity()).matches("some-host" + SUFFIX);
	}

	@Test
	void podNameIsTrimmed() {
		this.environment.put("POD_NAME", " pod-a\n");
		assertThat(resolve().identity()).matches("pod-a" + SUFFIX);
	}

	@Test
	void fallsBackToTheHostNameWhenNeitherIsSet() throws Exception {
		assertThat(resolve().identity()).matches(Pattern.quote(InetAddress.getLocalHost().getHostName()) + SUFFIX);
	}

	@Test
	void suffixIsRandomPerResolution() {
		this.environment.put("POD_NAME", "pod-a");
		assertThat(resolve().identity()).isNotEqualTo(resolve().identity());
	}

	@Test
	void identityPropertyIsUsedVerbatimWithoutSuffix() {
		this.environment.put("POD_NAME", "pod-a");
		this.properties.setIdentity("replica-1");
		assertThat(resolve().identity()).isEqualTo("replica-1");
	}

	@Test
	void identityOf128CharactersIsAccepted() {
		String identity = "x".repeat(128);
		this.properties.setIdentity(identity);
		assertThat(resolve().identity()).isEqualTo(identity);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", "two words", "tab\there", "line\nbreak" })
	void blankOrWhitespaceIdentityIsRejected(String identity) {
		this.properties.setIdentity(identity);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.identity");
		assertThat(ex.getValue()).isEqualTo(identity);
	}

	@Test
	void tooLongIdentityIsRejected() {
		this.properties.setIdentity("x".repeat(129));
		assertThat(invalid().getProperty()).isEqualTo("leader.election.identity");
	}

	// ---- namespace

	@Test
	void namespacePropertyComesFirst() throws IOException {
		this.properties.setNamespace("from-property");
		this.environment.put("POD_NAMESPACE", "from-env");
		writeServiceAccountNamespace("from-file");
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("from-property");
	}

	@Test
	void podNamespaceBeforeServiceAccountFile() throws IOException {
		this.environment.put("POD_NAMESPACE", "from-env");
		writeServiceAccountNamespace("from-file");
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("from-env");
	}

	@Test
	void serviceAccountFileBeforeClientNamespace() throws IOException {
		writeServiceAccountNamespace("from-file\n");
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("from-file");
	}

	@Test
	void blankPodNamespaceIsSkipped() throws IOException {
		this.environment.put("POD_NAMESPACE", " ");
		writeServiceAccountNamespace("from-file");
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("from-file");
	}

	@Test
	void clientNamespaceWhenNoPodNamespace() {
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("client-ns");
	}

	@Test
	void emptyServiceAccountFileIsSkipped() throws IOException {
		writeServiceAccountNamespace("\n");
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("client-ns");
	}

	@Test
	void defaultWhenNothingElse() {
		assertThat(resolve("orders", null).elections().get(0).namespace()).isEqualTo("default");
		assertThat(resolve("orders", " ").elections().get(0).namespace()).isEqualTo("default");
	}

	@Test
	void everyElectionUsesTheNamespace() {
		this.properties.setNamespace("team-a");
		this.properties.getElections().put("billing", election());
		assertThat(resolve().elections()).extracting(ElectionSettings::namespace).containsExactly("team-a",
				"team-a");
	}

	@ParameterizedTest
	@ValueSource(strings = { "Team-A", "team_a", "-team", "team-", "team.a" })
	void invalidNamespacePropertyIsRejected(String namespace) {
		this.properties.setNamespace(namespace);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.namespace");
		assertThat(ex.getValue()).isEqualTo(namespace);
	}

	@Test
	void namespaceOf64CharactersIsRejected() {
		this.properties.setNamespace("a".repeat(64));
		assertThat(invalid().getProperty()).isEqualTo("leader.election.namespace");
	}

	@Test
	void namespaceOf63CharactersIsAccepted() {
		this.properties.setNamespace("a".repeat(63));
		assertThat(resolve().elections().get(0).namespace()).isEqualTo("a".repeat(63));
	}

	// ---- timings

	@Test
	void configuredTimingsAreUsed() {
		this.properties.setLeaseDuration(Duration.ofMillis(1500));
		this.properties.setRenewDeadline(Duration.ofMillis(1000));
		this.properties.setRetryPeriod(Duration.ofMillis(200));
		ElectionSettings election = resolve().elections().get(0);
		assertThat(election.leaseDuration()).isEqualTo(Duration.ofMillis(1500));
		assertThat(election.renewDeadline()).isEqualTo(Duration.ofMillis(1000));
		assertThat(election.retryPeriod()).isEqualTo(Duration.ofMillis(200));
	}

	@ParameterizedTest
	@ValueSource(longs = { 15, 16, 60 })
	void renewDeadlineNotShorterThanLeaseDurationIsRejected(long seconds) {
		this.properties.setRenewDeadline(Duration.ofSeconds(seconds));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.renew-deadline");
		assertThat(ex.getValue()).isEqualTo(Duration.ofSeconds(seconds));
		assertThat(ex.getReason()).contains("shorter than the lease duration");
	}

	@ParameterizedTest
	@ValueSource(longs = { 10, 11 })
	void retryPeriodNotShorterThanRenewDeadlineIsRejected(long seconds) {
		this.properties.setRetryPeriod(Duration.ofSeconds(seconds));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.retry-period");
		assertThat(ex.getReason()).contains("shorter than the renew deadline");
	}

	@Test
	void renewPeriodDefaultsToHalfTheRenewDeadline() {
		this.properties.setRenewDeadline(Duration.ofSeconds(8));
		assertThat(resolve().elections().get(0).renewPeriod()).isEqualTo(Duration.ofSeconds(4));
	}

	@Test
	void renewPeriodDefaultsToTheRetryPeriodWhenThatIsLongerThanHalfTheRenewDeadline() {
		this.properties.setRetryPeriod(Duration.ofSeconds(6));
		assertThat(resolve().elections().get(0).renewPeriod()).isEqualTo(Duration.ofSeconds(6));
	}

	@Test
	void configuredRenewPeriodIsUsed() {
		this.properties.setRenewPeriod(Duration.ofSeconds(2));
		assertThat(resolve().elections().get(0).renewPeriod()).isEqualTo(Duration.ofSeconds(2));
	}

	@ParameterizedTest
	@ValueSource(longs = { 1000, 10_000, 12_000 })
	void renewPeriodShorterThanTheRetryPeriodOrNotShorterThanTheRenewDeadlineIsRejected(long millis) {
		this.properties.setRenewPeriod(Duration.ofMillis(millis));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.renew-period");
		assertThat(ex.getValue()).isEqualTo(Duration.ofMillis(millis));
		assertThat(ex.getReason()).contains("at least the retry period (2s)", "shorter than the renew deadline (10s)");
	}

	@Test
	void nonPositiveRenewPeriodIsRejected() {
		this.properties.setRenewPeriod(Duration.ofSeconds(-1));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.renew-period");
		assertThat(ex.getReason()).contains("positive");
	}

	@Test
	void namedElectionInheritsTheRenewPeriodOrDerivesItFromItsOwnRenewDeadline() {
		LeaderElectionProperties.Election billing = election();
		billing.setRenewDeadline(Duration.ofSeconds(12));
		this.properties.getElections().put("billing", billing);
		assertThat(resolve().elections().get(1).renewPeriod()).isEqualTo(Duration.ofSeconds(6));
		this.properties.setRenewPeriod(Duration.ofSeconds(3));
		assertThat(resolve().elections().get(1).renewPeriod()).isEqualTo(Duration.ofSeconds(3));
		billing.setRenewPeriod(Duration.ofSeconds(12));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.renew-period");
		assertThat(ex.getReason()).contains("shorter than the renew deadline (12s)");
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, -1 })
	void nonPositiveLeaseDurationIsRejected(long seconds) {
		this.properties.setLeaseDuration(Duration.ofSeconds(seconds));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.lease-duration");
		assertThat(ex.getReason()).contains("positive");
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, -1 })
	void nonPositiveRenewDeadlineIsRejected(long seconds) {
		this.properties.setRenewDeadline(Duration.ofSeconds(seconds));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.renew-deadline");
		assertThat(ex.getReason()).contains("positive");
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, -1 })
	void nonPositiveRetryPeriodIsRejected(long seconds) {
		this.properties.setRetryPeriod(Duration.ofSeconds(seconds));
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.retry-period");
		assertThat(ex.getReason()).contains("positive");
	}

	@Test
	void missingDurationIsRejected() {
		this.properties.setLeaseDuration(null);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.lease-duration");
		assertThat(ex.getValue()).isNull();
	}

	// ---- lease names

	@ParameterizedTest
	@ValueSource(strings = { "orders-lock", "a", "orders.example.com", "0rders-1" })
	void validLeaseNameIsUsed(String leaseName) {
		this.properties.setLeaseName(leaseName);
		assertThat(resolve().elections().get(0).leaseName()).isEqualTo(leaseName);
	}

	@Test
	void leaseNameOf253CharactersIsAccepted() {
		String leaseName = "a".repeat(63) + "." + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(61);
		assertThat(leaseName).hasSize(253);
		this.properties.setLeaseName(leaseName);
		assertThat(resolve().elections().get(0).leaseName()).isEqualTo(leaseName);
	}

	@Test
	void leaseNameOf254CharactersIsRejected() {
		this.properties.setLeaseName("a".repeat(254));
		assertThat(invalid().getProperty()).isEqualTo("leader.election.lease-name");
	}

	@ParameterizedTest
	@ValueSource(strings = { "My_Lease", "Orders", "orders_lock", "-orders", "orders-", "orders..lock",
			"orders lock" })
	void leaseNameThatIsNotADns1123SubdomainIsRejected(String leaseName) {
		this.properties.setLeaseName(leaseName);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.lease-name");
		assertThat(ex.getValue()).isEqualTo(leaseName);
		assertThat(ex.getReason()).contains("DNS-1123 subdomain").doesNotContain("spring.application.name");
	}

	@Test
	void applicationNameThatMakesAnInvalidDefaultLeaseNameIsRejected() {
		InvalidLeaderElectionPropertyException ex = invalid("MyApp");
		assertThat(ex.getProperty()).isEqualTo("leader.election.lease-name");
		assertThat(ex.getValue()).isEqualTo("MyApp-leader");
		assertThat(ex.getReason()).contains("spring.application.name");
	}

	@Test
	void explicitLeaseNameMakesAnyApplicationNameWork() {
		this.properties.setLeaseName("my-app-leader");
		assertThat(resolve("MyApp", null).elections().get(0).leaseName()).isEqualTo("my-app-leader");
	}

	// ---- elections

	@Test
	void namedElectionsFollowTheDefaultOneInConfiguredOrder() {
		Map<String, LeaderElectionProperties.Election> elections = this.properties.getElections();
		elections.put("reports", election());
		elections.put("billing", election());
		assertThat(resolve().electionNames()).containsExactly("default", "reports", "billing");
	}

	@Test
	void namedElectionInheritsUnsetValues() {
		this.properties.setLeaseDuration(Duration.ofSeconds(6));
		this.properties.setRenewDeadline(Duration.ofSeconds(4));
		this.properties.setRetryPeriod(Duration.ofSeconds(1));
		this.properties.setNamespace("team-a");
		this.properties.getElections().put("billing", election());
		ElectionSettings billing = resolve().elections().get(1);
		assertThat(billing).isEqualTo(new ElectionSettings("billing", "team-a", "orders-billing-leader",
				Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofSeconds(1)).renewingEvery(Duration.ofSeconds(2)));
	}

	@Test
	void namedElectionLeaseNameWithoutApplicationName() {
		this.properties.getElections().put("billing", election());
		assertThat(resolve(null, null).elections().get(1).leaseName()).isEqualTo("application-billing-leader");
	}

	@Test
	void namedElectionOverridesEachValue() {
		LeaderElectionProperties.Election billing = election();
		billing.setLeaseName("billing-lock");
		billing.setLeaseDuration(Duration.ofSeconds(30));
		billing.setRenewDeadline(Duration.ofSeconds(20));
		billing.setRetryPeriod(Duration.ofSeconds(5));
		this.properties.getElections().put("billing", billing);
		LeaderElectionSettings settings = resolve();
		assertThat(settings.elections().get(1)).isEqualTo(new ElectionSettings("billing", "client-ns",
				"billing-lock", Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofSeconds(5))
			.renewingEvery(Duration.ofSeconds(10)));
		assertThat(settings.elections().get(0).leaseDuration()).isEqualTo(Duration.ofSeconds(15));
	}

	@Test
	void namedElectionMixesOwnAndInheritedTimings() {
		LeaderElectionProperties.Election billing = election();
		billing.setRetryPeriod(Duration.ofMillis(500));
		this.properties.getElections().put("billing", billing);
		ElectionSettings settings = resolve().elections().get(1);
		assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
		assertThat(settings.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
		assertThat(settings.retryPeriod()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void inheritedTimingsAreCheckedAgainstOwnOnes() {
		LeaderElectionProperties.Election billing = election();
		billing.setRenewDeadline(Duration.ofSeconds(20));
		this.properties.getElections().put("billing", billing);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.renew-deadline");
	}

	@Test
	void nonPositiveElectionTimingIsRejected() {
		LeaderElectionProperties.Election billing = election();
		billing.setRetryPeriod(Duration.ZERO);
		this.properties.getElections().put("billing", billing);
		assertThat(invalid().getProperty()).isEqualTo("leader.election.elections.billing.retry-period");
	}

	@Test
	void electionNamedDefaultIsRejected() {
		this.properties.getElections().put("default", election());
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.default");
		assertThat(ex.getReason()).contains("'default'");
	}

	@ParameterizedTest
	@ValueSource(strings = { "Billing", "bill_ing", "bill.ing", "-billing", "billing-", "" })
	void electionNameThatIsNotADns1123LabelIsRejected(String name) {
		this.properties.getElections().put(name, election());
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections." + name);
		assertThat(ex.getReason()).contains("DNS-1123 label");
	}

	@Test
	void electionNameOf64CharactersIsRejected() {
		String name = "b".repeat(64);
		this.properties.getElections().put(name, election());
		assertThat(invalid().getProperty()).isEqualTo("leader.election.elections." + name);
	}

	@Test
	void invalidElectionLeaseNameIsRejected() {
		LeaderElectionProperties.Election billing = election();
		billing.setLeaseName("Billing_Lock");
		this.properties.getElections().put("billing", billing);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.lease-name");
		assertThat(ex.getValue()).isEqualTo("Billing_Lock");
		assertThat(ex.getReason()).doesNotContain("spring.application.name");
	}

	@Test
	void applicationNameThatMakesAnInvalidElectionLeaseNameIsRejected() {
		this.properties.setLeaseName("my-app-leader");
		this.properties.getElections().put("billing", election());
		InvalidLeaderElectionPropertyException ex = invalid("MyApp");
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.lease-name");
		assertThat(ex.getValue()).isEqualTo("MyApp-billing-leader");
		assertThat(ex.getReason()).contains("spring.application.name");
	}

	@Test
	void twoElectionsSharingALeaseAreRejected() {
		LeaderElectionProperties.Election reports = election();
		reports.setLeaseName("shared-lock");
		LeaderElectionProperties.Election billing = election();
		billing.setLeaseName("shared-lock");
		this.properties.getElections().put("reports", reports);
		this.properties.getElections().put("billing", billing);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.lease-name");
		assertThat(ex.getValue()).isEqualTo("shared-lock");
		assertThat(ex.getReason()).contains("'reports'");
	}

	@Test
	void electionSharingTheDefaultLeaseIsRejected() {
		LeaderElectionProperties.Election billing = election();
		billing.setLeaseName("orders-leader");
		this.properties.getElections().put("billing", billing);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.lease-name");
		assertThat(ex.getReason()).contains("'default'");
	}

	@Test
	void releaseOnShutdownAndOnLostAreCarriedOver() {
		this.properties.setReleaseOnShutdown(false);
		this.properties.setOnLost(OnLost.EXIT);
		LeaderElectionSettings settings = resolve();
		assertThat(settings.releaseOnShutdown()).isFalse();
		assertThat(settings.onLost()).isEqualTo(OnLost.EXIT);
	}

	@Test
	void exceptionMessageNamesPropertyValueAndReason() {
		this.properties.setRenewDeadline(Duration.ofSeconds(20));
		assertThatExceptionOfType(InvalidLeaderElectionPropertyException.class).isThrownBy(this::resolve)
			.withMessageContaining("'leader.election.renew-deadline'")
			.withMessageContaining("(value: 20s)")
			.withMessageContaining("shorter than the lease duration");
	}

	@Test
	void forLifeIsTheApplicationsModeUnlessAnElectionSaysLeaseAndIsHeldByThePodPodNameNames() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.setMode(LeaderElectionProperties.Mode.FOR_LIFE);
		LeaderElectionProperties.Election billing = election();
		billing.setMode(LeaderElectionProperties.Mode.LEASE);
		this.properties.getElections().put("billing", billing);
		this.properties.getElections().put("shipping", election());
		this.properties.getForLife().setNotReadyNodeTakeover(Duration.ofMinutes(5));

		LeaderElectionSettings settings = resolve();

		assertThat(settings.elections()).extracting(ElectionSettings::mode)
			.containsExactly("for-life", "lease", "for-life");
		assertThat(settings.elections().get(0).forLife())
			.isEqualTo(new ElectionSettings.ForLife("orders-0", Duration.ofMinutes(5)));
	}

	@Test
	void aNotReadyNodeTakeoverThatIsNotPositiveIsRejectedNamingTheProperty() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.setMode(LeaderElectionProperties.Mode.FOR_LIFE);
		this.properties.getForLife().setNotReadyNodeTakeover(Duration.ZERO);

		assertThat(invalid().getProperty()).isEqualTo("leader.election.for-life.not-ready-node-takeover");
	}

	// ---- shards and balance

	private LeaderElectionProperties.Election sharded(int shards) {
		LeaderElectionProperties.Election orders = election();
		orders.setShards(shards);
		this.properties.getElections().put("orders", orders);
		return orders;
	}

	@Test
	void aShardedElectionIsExpandedIntoItsShardsInIndexOrderEachOnItsOwnLeaseAndBalanced() {
		this.properties.getElections().put("billing", election());
		sharded(3);

		LeaderElectionSettings settings = resolve();

		assertThat(settings.electionNames()).containsExactly("default", "billing", "orders-0-of-3", "orders-1-of-3",
				"orders-2-of-3");
		ElectionSettings whole = new ElectionSettings("orders", "client-ns", "orders-orders-leader",
				Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2))
			.renewingEvery(Duration.ofSeconds(5));
		assertThat(settings.elections().subList(2, 5)).containsExactly(whole.shard(0, 3, true), whole.shard(1, 3, true),
				whole.shard(2, 3, true));
		assertThat(settings.elections().get(3).leaseName()).isEqualTo("orders-orders-leader-1-of-3");
		assertThat(settings.elections().get(3).shard()).isEqualTo(new Shard("orders", 1, 3));
		assertThat(settings.elections().get(3).balanceGroup()).isNotNull();
		assertThat(settings.elections().subList(0, 2)).extracting(ElectionSettings::balanceGroup)
			.containsOnlyNulls();
	}

	@Test
	void balanceFalseLetsEveryReplicaClaimWhicheverShardIsFree() {
		sharded(2).setBalance(false);

		LeaderElectionSettings settings = resolve();

		assertThat(settings.elections().subList(1, 3)).extracting(ElectionSettings::shard)
			.containsExactly(new Shard("orders", 0, 2), new Shard("orders", 1, 2));
		assertThat(settings.elections()).extracting(ElectionSettings::balanceGroup).containsOnlyNulls();
	}

	@Test
	void oneShardLeavesTheElectionWhole() {
		sharded(1);

		ElectionSettings orders = resolve().elections().get(1);

		assertThat(orders.name()).isEqualTo("orders");
		assertThat(orders.leaseName()).isEqualTo("orders-orders-leader");
		assertThat(orders.shard()).isNull();
		assertThat(orders.balanceGroup()).isNull();
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, -1 })
	void shardsThatAreNotPositiveAreRejected(int shards) {
		sharded(shards);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.shards");
		assertThat(ex.getValue()).isEqualTo(shards);
		assertThat(ex.getReason()).contains("at least 1");
	}

	@Test
	void moreShardsThanTheMaximumAreRejectedSayingTheMaximum() {
		sharded(Shard.MAX_COUNT + 1);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.shards");
		assertThat(ex.getReason()).contains("at most " + Shard.MAX_COUNT).contains("maximum");
	}

	@Test
	void theMaximumNumberOfShardsIsAccepted() {
		sharded(Shard.MAX_COUNT);

		assertThat(resolve().elections()).hasSize(1 + Shard.MAX_COUNT)
			.last()
			.extracting(ElectionSettings::name)
			.isEqualTo("orders-255-of-256");
	}

	@Test
	void shardsOfAnElectionInForLifeModeAreRejectedNamingTheModesProperty() {
		this.environment.put("POD_NAME", "orders-0");
		sharded(4).setMode(LeaderElectionProperties.Mode.FOR_LIFE);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.shards");
		assertThat(ex.getReason()).contains("not supported").contains("for-life")
			.contains("leader.election.elections.orders.mode");
	}

	@Test
	void shardsOfAnElectionInheritingForLifeModeAreRejectedNamingTheApplicationsMode() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.setMode(LeaderElectionProperties.Mode.FOR_LIFE);
		sharded(4);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.shards");
		assertThat(ex.getReason()).contains("not supported").contains("(set by leader.election.mode)");
	}

	@Test
	void balanceOnAnElectionThatIsNotShardedIsRejectedPointingToTheApplicationsBalance() {
		sharded(1).setBalance(true);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.balance");
		assertThat(ex.getValue()).isEqualTo(true);
		assertThat(ex.getReason()).contains("sharded").contains("leader.election.balance");
	}

	@Test
	void standaloneLeadsShardedElectionsToo() {
		this.properties.setMode(LeaderElectionProperties.Mode.STANDALONE);
		sharded(2).setMode(LeaderElectionProperties.Mode.FOR_LIFE);

		assertThat(resolve().electionNames()).containsExactly("default", "orders-0-of-2", "orders-1-of-2");
	}

	@Test
	void balanceSpreadsTheUnshardedLeaseElectionsInOneGroupLeavingShardsAndForLifeOut() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.setBalance(true);
		this.properties.getElections().put("billing", election());
		LeaderElectionProperties.Election reports = election();
		reports.setMode(LeaderElectionProperties.Mode.FOR_LIFE);
		this.properties.getElections().put("reports", reports);
		sharded(2).setBalance(false);

		LeaderElectionSettings settings = resolve();

		String group = "orders-leader" + LeaderStatus.ELECTIONS_GROUP_SUFFIX;
		assertThat(settings.elections()).extracting(ElectionSettings::name, ElectionSettings::balanceGroup)
			.containsExactly(tuple("default", group), tuple("billing", group), tuple("reports", null),
					tuple("orders-0-of-2", null), tuple("orders-1-of-2", null));
	}

	@Test
	void aShardNamedLikeAnotherElectionIsRejected() {
		sharded(2);
		this.properties.getElections().put("orders-1-of-2", election());

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.shards");
		assertThat(ex.getReason()).contains("'orders-1-of-2'");
	}

	@Test
	void aLeaseNameTooLongForTheShardsSuffixIsRejected() {
		// 253 characters with the suffix of shard 0 to 9, one more from shard 10 on
		sharded(16).setLeaseName("l".repeat(245));

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.orders.lease-name");
		assertThat(ex.getValue()).isEqualTo("l".repeat(245) + "-10-of-16");
		assertThat(ex.getReason()).contains("-<index>-of-<shards>");
	}

	@Test
	void aShardsLeaseTakenByAnotherElectionIsRejected() {
		sharded(2).setLeaseName("orders-lock");
		LeaderElectionProperties.Election billing = election();
		billing.setLeaseName("orders-lock-1-of-2");
		this.properties.getElections().put("billing", billing);

		InvalidLeaderElectionPropertyException ex = invalid();

		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.lease-name");
		assertThat(ex.getReason()).contains("'orders-1-of-2'");
	}


	// ---- migration from spring-cloud-kubernetes' ConfigMap leader

	@Test
	void noMigrationByDefault() {
		assertThat(resolve().elections()).extracting(ElectionSettings::migration).containsOnlyNulls();
	}

	@Test
	void aMigrationOfTheDefaultElectionKeysOnSpringCloudKubernetesRoleAndThisPod() {
		this.properties.getConfigMapMigration().setEnabled(true);
		this.environment.put("spring.cloud.kubernetes.leader.role", "orders-job");
		this.environment.put("POD_NAME", "orders-7d9f-abcde");
		assertThat(resolve().elections().get(0).migration())
			.isEqualTo(new ElectionSettings.Migration("leaders", "leader.id.orders-job", "orders-7d9f-abcde"));
	}

	@Test
	void aMigrationTakesSpringCloudKubernetesConfigMapAndPrefixUnlessItsOwnAreSet() {
		this.properties.getConfigMapMigration().setEnabled(true);
		this.environment.put("spring.cloud.kubernetes.leader.config-map-name", "old-leaders");
		this.environment.put("spring.cloud.kubernetes.leader.leader-id-prefix", "id.");
		this.environment.put("HOSTNAME", "orders-host");
		assertThat(resolve().elections().get(0).migration())
			.isEqualTo(new ElectionSettings.Migration("old-leaders", "id.leader", "orders-host"));
		this.properties.getConfigMapMigration().setConfigMapName("mine");
		this.properties.getConfigMapMigration().setKeyPrefix("lead.");
		this.properties.getConfigMapMigration().setRole("billing");
		assertThat(resolve().elections().get(0).migration())
			.isEqualTo(new ElectionSettings.Migration("mine", "lead.billing", "orders-host"));
	}

	@Test
	void aNamedElectionMigratesUnderItsOwnNameWhenItsRoleIsUnset() {
		this.environment.put("POD_NAME", "orders-0");
		LeaderElectionProperties.Election billing = election();
		billing.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("billing", billing);
		LeaderElectionSettings settings = resolve();
		assertThat(settings.elections().get(0).migration()).isNull();
		assertThat(settings.elections().get(1).migration())
			.isEqualTo(new ElectionSettings.Migration("leaders", "leader.id.billing", "orders-0"));
	}

	@Test
	void aMigrationWithNoRoleIsRejected() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.getConfigMapMigration().setEnabled(true);
		this.properties.getConfigMapMigration().setRole(" ");
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.config-map-migration.role");
		assertThat(ex.getReason()).contains("must name the role the old replicas elect a leader for");
	}

	@Test
	void aRoleThatMakesNoConfigMapKeyIsRejected() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.getConfigMapMigration().setEnabled(true);
		this.properties.getConfigMapMigration().setRole("orders/jobs");
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.config-map-migration.role");
		assertThat(ex.getReason()).contains("'leader.id.orders/jobs', which is not one");
	}

	@Test
	void aMigrationWithoutPodNameIsRejected() {
		this.properties.getConfigMapMigration().setEnabled(true);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.config-map-migration.enabled");
		assertThat(ex.getReason()).contains("POD_NAME (or HOSTNAME)", "readiness");
	}

	@Test
	void anInvalidConfigMapNameIsRejected() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.getConfigMapMigration().setEnabled(true);
		this.properties.getConfigMapMigration().setConfigMapName("Leaders!");
		assertThat(invalid().getProperty()).isEqualTo("leader.election.config-map-migration.config-map-name");
	}

	@Test
	void aNamedElectionWhoseNameMakesTheDefaultElectionsKeyIsRejectedNamingItsEnabled() {
		this.environment.put("POD_NAME", "orders-0");
		this.properties.getConfigMapMigration().setEnabled(true);
		this.properties.getConfigMapMigration().setRole("billing");
		LeaderElectionProperties.Election billing = election();
		billing.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("billing", billing);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.billing.config-map-migration.enabled");
		assertThat(ex.getReason()).contains("election 'default'", "'leader.id.billing'", "defaults to its name",
				"set leader.election.elections.billing.config-map-migration.role");
	}

	@Test
	void aNamedElectionWhoseRoleIsTheDefaultElectionsIsRejectedNamingItsRole() {
		this.environment.put("POD_NAME", "orders-0");
		this.environment.put("spring.cloud.kubernetes.leader.role", "jobs");
		this.properties.getConfigMapMigration().setEnabled(true);
		LeaderElectionProperties.Election reports = election();
		reports.getConfigMapMigration().setEnabled(true);
		reports.getConfigMapMigration().setRole("jobs");
		this.properties.getElections().put("reports", reports);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.reports.config-map-migration.role");
		assertThat(ex.getReason()).contains("election 'default'", "'leader.id.jobs'");
	}

	@Test
	void aMigrationOfAForLifeOrShardedElectionIsRejectedNamingItsOwnEnabled() {
		this.environment.put("POD_NAME", "orders-0");
		LeaderElectionProperties.Election orders = sharded(2);
		orders.getConfigMapMigration().setEnabled(true);
		assertThat(invalid().getProperty()).isEqualTo("leader.election.elections.orders.config-map-migration.enabled");
		orders.setShards(1);
		this.properties.setMode(LeaderElectionProperties.Mode.FOR_LIFE);
		InvalidLeaderElectionPropertyException forLife = invalid();
		assertThat(forLife.getProperty()).isEqualTo("leader.election.elections.orders.config-map-migration.enabled");
		assertThat(forLife.getReason()).contains("lease mode only", "election 'orders'",
				"(set by leader.election.mode)");
		this.properties.getElections().clear();
		this.properties.getConfigMapMigration().setEnabled(true);
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.config-map-migration.enabled");
		assertThat(ex.getReason()).contains("lease mode only", "election 'default'");
	}

	/**
	 * The README's migration step on an application shaped like the sample: a default election, a
	 * named one and a sharded one. The top-level block stands for spring-cloud-kubernetes' one
	 * leader: it migrates the default election alone, the sharded one is no reason to refuse it.
	 */
	@Test
	void theTopLevelMigrationMigratesTheDefaultElectionAlone() {
		this.environment.put("POD_NAME", "sample-5c7d-x2x9q");
		this.properties.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("reports", election());
		sharded(8);
		LeaderElectionSettings settings = resolve();
		assertThat(settings.elections()).hasSize(10);
		assertThat(settings.elections().get(0).migration())
			.isEqualTo(new ElectionSettings.Migration("leaders", "leader.id.leader", "sample-5c7d-x2x9q"));
		assertThat(settings.elections().subList(1, 10)).extracting(ElectionSettings::migration).containsOnlyNulls();
	}

	@Test
	void aRoleAtTheTopLevelOrFromSpringCloudKubernetesIsTheDefaultElectionsOnly() {
		this.environment.put("POD_NAME", "orders-0");
		this.environment.put("spring.cloud.kubernetes.leader.role", "jobs");
		this.properties.getConfigMapMigration().setEnabled(true);
		LeaderElectionProperties.Election reports = election();
		reports.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("reports", reports);
		assertThat(resolve().elections()).extracting(ElectionSettings::migration)
			.containsExactly(new ElectionSettings.Migration("leaders", "leader.id.jobs", "orders-0"),
					new ElectionSettings.Migration("leaders", "leader.id.reports", "orders-0"));
		this.properties.getConfigMapMigration().setRole("billing");
		assertThat(resolve().elections()).extracting(ElectionSettings::migration)
			.containsExactly(new ElectionSettings.Migration("leaders", "leader.id.billing", "orders-0"),
					new ElectionSettings.Migration("leaders", "leader.id.reports", "orders-0"));
	}

	@Test
	void aNamedElectionTakesItsConfigMapAndPrefixFromTheTopLevelBlockThenSpringCloudKubernetes() {
		this.environment.put("POD_NAME", "orders-0");
		this.environment.put("spring.cloud.kubernetes.leader.config-map-name", "old-leaders");
		this.environment.put("spring.cloud.kubernetes.leader.leader-id-prefix", "id.");
		LeaderElectionProperties.Election reports = election();
		reports.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("reports", reports);
		assertThat(resolve().elections().get(1).migration())
			.isEqualTo(new ElectionSettings.Migration("old-leaders", "id.reports", "orders-0"));
		this.properties.getConfigMapMigration().setConfigMapName("shared-leaders");
		this.properties.getConfigMapMigration().setKeyPrefix("lead.");
		assertThat(resolve().elections().get(1).migration())
			.isEqualTo(new ElectionSettings.Migration("shared-leaders", "lead.reports", "orders-0"));
		reports.getConfigMapMigration().setConfigMapName("report-leaders");
		reports.getConfigMapMigration().setKeyPrefix("report.");
		reports.getConfigMapMigration().setRole("nightly");
		LeaderElectionSettings settings = resolve();
		assertThat(settings.elections().get(0).migration()).isNull();
		assertThat(settings.elections().get(1).migration())
			.isEqualTo(new ElectionSettings.Migration("report-leaders", "report.nightly", "orders-0"));
	}

	@Test
	void aNamedElectionsMigrationValuesWithoutItsOwnEnabledAreRejectedNamingThem() {
		this.properties.getConfigMapMigration().setEnabled(true);
		LeaderElectionProperties.Election reports = election();
		reports.getConfigMapMigration().setRole("reports-job");
		this.properties.getElections().put("reports", reports);
		this.environment.put("POD_NAME", "orders-0");
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo("leader.election.elections.reports.config-map-migration.role");
		assertThat(ex.getReason()).contains("leader.election.elections.reports.config-map-migration.enabled=true",
				"leader.election.config-map-migration.enabled migrates the default election alone");
		sharded(2).getConfigMapMigration().setKeyPrefix("id.");
		reports.getConfigMapMigration().setEnabled(false);
		assertThat(invalid().getProperty()).isEqualTo("leader.election.elections.orders.config-map-migration.key-prefix");
	}

	@Test
	void aNamedElectionWithoutPodNameIsRejectedNamingItsEnabled() {
		LeaderElectionProperties.Election reports = election();
		reports.getConfigMapMigration().setEnabled(true);
		this.properties.getElections().put("reports", reports);
		assertThat(invalid().getProperty()).isEqualTo("leader.election.elections.reports.config-map-migration.enabled");
	}

	/** Each bad value, set where a user sets it, is reported under that property. */
	@ParameterizedTest
	@ValueSource(strings = { "spring.cloud.kubernetes.leader.role= ", "spring.cloud.kubernetes.leader.role=a/b",
			"spring.cloud.kubernetes.leader.config-map-name=Leaders!",
			"spring.cloud.kubernetes.leader.leader-id-prefix=id/",
			"leader.election.config-map-migration.config-map-name=Leaders!",
			"leader.election.config-map-migration.key-prefix=id/",
			"leader.election.elections.reports.config-map-migration.role=a/b",
			"leader.election.elections.reports.config-map-migration.role= ",
			"leader.election.elections.reports.config-map-migration.config-map-name=Leaders!",
			"leader.election.elections.reports.config-map-migration.key-prefix=id/" })
	void aBadMigrationValueIsReportedUnderThePropertyThatSetIt(String assignment) {
		String property = assignment.substring(0, assignment.indexOf('='));
		String value = assignment.substring(assignment.indexOf('=') + 1);
		this.environment.put("POD_NAME", "orders-0");
		LeaderElectionProperties.ConfigMapMigration topLevel = this.properties.getConfigMapMigration();
		LeaderElectionProperties.Election reports = election();
		LeaderElectionProperties.ConfigMapMigration own = reports.getConfigMapMigration();
		own.setEnabled(true);
		this.properties.getElections().put("reports", reports);
		if (property.startsWith("spring.cloud.")) {
			// spring-cloud-kubernetes' role is the default election's
			topLevel.setEnabled(true);
			this.environment.put(property, value);
		}
		else {
			LeaderElectionProperties.ConfigMapMigration block = property.startsWith("leader.election.elections.")
					? own : topLevel;
			switch (property.substring(property.lastIndexOf('.') + 1)) {
				case "config-map-name" -> block.setConfigMapName(value);
				case "key-prefix" -> block.setKeyPrefix(value);
				default -> block.setRole(value);
			}
		}
		InvalidLeaderElectionPropertyException ex = invalid();
		assertThat(ex.getProperty()).isEqualTo(property);
		assertThat(ex.getValue()).isEqualTo(value);
	}

}
