package io.leaderelection.autoconfigure.routing;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EndpointAddress}: the addresses the API server accepts in an EndpointSlice of
 * type IPv4 or IPv6, and why it refuses the others, as its validation does (Go's {@code net.IP}
 * classes of address, and strict IP validation).
 */
class EndpointAddressTests {

	@ParameterizedTest
	@ValueSource(strings = { "10.0.0.1", "10.244.1.17", "192.0.2.7", "100.64.0.1", "172.16.0.1", "8.8.8.8",
			"255.255.255.255",
			// multicast outside link-local scope: the server accepts it
			"224.0.1.1", "239.255.255.250", "ff05::1", "ff0e::fb",
			// the last addresses before and first after the refused ranges
			"126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "224.0.1.0", "fe7f::1", "fec0::1",
			"2001:db8::1", "fd00:10:244::17", "2001:db8::1:0:0:1", "2001:db8:0:1:1:1:1:1", "1::", "::2",
			"64:ff9b::c000:201" })
	void acceptsWhatTheApiServerAccepts(String address) {
		assertThat(EndpointAddress.refusal(address)).isNull();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			0.0.0.0            | is the unspecified address
			::                 | is the unspecified address
			127.0.0.1          | is in the loopback range
			127.255.0.2        | is in the loopback range
			::1                | is in the loopback range
			::ffff:127.0.0.1   | is in the loopback range
			169.254.169.254    | is in the link-local range
			169.254.0.1        | is in the link-local range
			fe80::1            | is in the link-local range
			febf:ffff::1       | is in the link-local range
			224.0.0.251        | is in the link-local multicast range
			224.0.0.0          | is in the link-local multicast range
			ff02::1            | is in the link-local multicast range
			ff12::1:3          | is in the link-local multicast range
			""")
	void refusesTheRangesTheApiServerRefuses(String address, String reason) {
		EndpointAddress.Refusal refusal = EndpointAddress.refusal(address);
		assertThat(refusal).isNotNull();
		assertThat(refusal.reason()).startsWith(reason);
		assertThat(refusal.canonical()).isNull();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			010.0.0.1                | 10.0.0.1          | has an octet with a leading zero
			10.000.001.002           | 10.0.1.2          | has an octet with a leading zero
			::ffff:10.0.0.1          | 10.0.0.1          | is an IPv4-mapped IPv6 address
			::FFFF:192.0.2.1         | 192.0.2.1         | is an IPv4-mapped IPv6 address
			2001:DB8::1              | 2001:db8::1       | is not in the canonical form of RFC 5952
			2001:db8:0:0:0:0:0:1     | 2001:db8::1       | is not in the canonical form of RFC 5952
			2001:0db8::0001          | 2001:db8::1       | is not in the canonical form of RFC 5952
			2001:db8::0:1            | 2001:db8::1       | is not in the canonical form of RFC 5952
			2001:db8:0::1:0:0:1      | 2001:db8::1:0:0:1 | is not in the canonical form of RFC 5952
			2001:db8::1:0:0:0:1      | 2001:db8:0:1::1   | is not in the canonical form of RFC 5952
			2001:db8::1:1:1:1:1      | 2001:db8:0:1:1:1:1:1 | is not in the canonical form of RFC 5952
			64:ff9b::192.0.2.1       | 64:ff9b::c000:201 | is not in the canonical form of RFC 5952
			""")
	void refusesOtherFormsThanTheCanonicalOneNamingIt(String address, String canonical, String reason) {
		EndpointAddress.Refusal refusal = EndpointAddress.refusal(address);
		assertThat(refusal).isNotNull();
		assertThat(refusal.reason()).startsWith(reason);
		assertThat(refusal.canonical()).isEqualTo(canonical);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "leader.example.com", "localhost", "10.0.0", "10.0.0.256", "1.2.3.4.5", "10.0.0.1/32",
			"fe80::1%eth0", "[2001:db8::1]", "2001:db8::1::2", "12345::1", "::g", "..:", "10.0.0.1 " })
	void refusesWhatIsNoAddress(String text) {
		assertThat(EndpointAddress.refusal(text)).isEqualTo(EndpointAddress.NOT_AN_ADDRESS);
	}

}
