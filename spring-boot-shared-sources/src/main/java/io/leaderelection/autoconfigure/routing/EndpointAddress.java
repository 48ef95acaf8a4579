package io.leaderelection.autoconfigure.routing;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An address as the API server checks it in an EndpointSlice of type IPv4 or IPv6 (Kubernetes'
 * discovery validation, {@code ValidateEndpointIP} and strict IP validation): it must parse as an
 * IP address, not be unspecified, loopback, link-local or link-local multicast, and be written in
 * the one form Kubernetes writes it in. The server answers 422 to the others, which a start can
 * tell the user instead of every term's first write.
 */
final class EndpointAddress {

	private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

	/**
	 * What an IPv6 literal is made of: with a colon, and a hex digit or colon first, the JDK parses
	 * the text as a literal and never looks it up as a name.
	 */
	private static final Pattern IPV6 = Pattern.compile("(?=.*:)[0-9a-fA-F:][0-9a-fA-F:.]*");

	/** The refusal of a text that is no IP address at all. */
	static final Refusal NOT_AN_ADDRESS = new Refusal("is not an IPv4 or IPv6 address", null);

	private EndpointAddress() {
	}

	/** Why the API server refuses the text as an endpoint's address; {@code null} when it accepts it. */
	static Refusal refusal(String text) {
		InetAddress address = parse(text);
		if (address == null) {
			return NOT_AN_ADDRESS;
		}
		if (address.isAnyLocalAddress()) {
			return new Refusal("is the unspecified address (0.0.0.0, ::)", null);
		}
		if (address.isLoopbackAddress()) {
			return new Refusal("is in the loopback range (127.0.0.0/8, ::1)", null);
		}
		if (address.isLinkLocalAddress()) {
			return new Refusal("is in the link-local range (169.254.0.0/16, fe80::/10)", null);
		}
		if (address.isMCLinkLocal()) {
			return new Refusal("is in the link-local multicast range (224.0.0.0/24, ffx2::/16)", null);
		}
		if (text.contains(":") && address instanceof Inet4Address) {
			return new Refusal("is an IPv4-mapped IPv6 address, which the API server's strict IP validation refuses",
					address.getHostAddress());
		}
		String canonical = canonical(address);
		if (!text.equals(canonical)) {
			return (address instanceof Inet4Address)
					? new Refusal("has an octet with a leading zero, which the API server's strict IP validation "
							+ "refuses (other software reads such an octet as octal)", canonical)
					: new Refusal("is not in the canonical form of RFC 5952, the form Kubernetes writes Pod "
							+ "addresses in, which the API server's strict IP validation requires", canonical);
		}
		return null;
	}

	/** The address the text names; {@code null} when it names none. */
	private static InetAddress parse(String text) {
		Matcher ipv4 = IPV4.matcher(text);
		if (ipv4.matches()) {
			byte[] octets = new byte[4];
			for (int i = 0; i < 4; i++) {
				int octet = Integer.parseInt(ipv4.group(i + 1));
				if (octet > 255) {
					return null;
				}
				octets[i] = (byte) octet;
			}
			return byAddress(octets);
		}
		if (!IPV6.matcher(text).matches()) {
			return null;
		}
		try {
			return InetAddress.getByName(text);
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	/** The address as Kubernetes (Go's {@code net.IP}) writes it: dotted decimal, or RFC 5952. */
	private static String canonical(InetAddress address) {
		if (address instanceof Inet6Address) {
			byte[] bytes = address.getAddress();
			int[] groups = new int[8];
			for (int i = 0; i < 8; i++) {
				groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
			}
			// the longest run of two or more zero groups, the first of equals, is written "::"
			int runStart = -1;
			int runLength = 1;
			for (int i = 0; i < 8; i++) {
				int length = 0;
				while (i + length < 8 && groups[i + length] == 0) {
					length++;
				}
				if (length > runLength) {
					runStart = i;
					runLength = length;
				}
			}
			StringBuilder written = new StringBuilder();
			for (int i = 0; i < 8; i++) {
				if (i == runStart) {
					written.append("::");
					i += runLength - 1;
					continue;
				}
				if (written.length() > 0 && written.charAt(written.length() - 1) != ':') {
					written.append(':');
				}
				written.append(Integer.toHexString(groups[i]));
			}
			return written.toString();
		}
		return address.getHostAddress();
	}

	private static InetAddress byAddress(byte[] octets) {
		try {
			return InetAddress.getByAddress(octets);
		}
		catch (UnknownHostException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Why the API server refuses an address.
	 *
	 * @param reason what the address is, e.g. {@code is in the loopback range (127.0.0.0/8, ::1)}
	 * @param canonical the same address as the server accepts it; {@code null} when no form of it
	 * is accepted
	 */
	record Refusal(String reason, String canonical) {

	}

}
