#!/usr/bin/env python3
"""subnet-calc: IPv4 and IPv6 subnet facts, membership, splitting and summarising.

Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
SKILLGATE_SKILL_ARGS environment variable). Bad arguments print a line starting
with "ERROR:" and exit 2. Nothing is written to disk and nothing uses the network.
"""
import ipaddress
import json
import os
import sys

MAX_INPUT_BYTES = 256 * 1024
MAX_ITEMS = 1000
MAX_LISTED = 64
OPERATIONS = ("info", "contains", "split", "summarize")
KNOWN_KEYS = {"operation", "network", "addresses", "new_prefix", "subnets", "networks", "node"}
KINDS = [
    ("10.0.0.0/8", "private (RFC 1918)"), ("172.16.0.0/12", "private (RFC 1918)"),
    ("192.168.0.0/16", "private (RFC 1918)"),
    ("100.64.0.0/10", "shared address space (RFC 6598: carrier-grade NAT, also used by Tailscale)"),
    ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local (APIPA)"), ("224.0.0.0/4", "multicast"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"), ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"), ("198.18.0.0/15", "benchmarking (RFC 2544)"),
    ("0.0.0.0/8", "\"this network\" (not routable)"), ("255.255.255.255/32", "limited broadcast"),
    ("240.0.0.0/4", "reserved (class E)"),
    ("::1/128", "loopback"), ("::/128", "unspecified"), ("fe80::/10", "link-local"),
    ("fc00::/7", "unique local (ULA, the IPv6 private range)"), ("ff00::/8", "multicast"),
    ("2001:db8::/32", "documentation"), ("::ffff:0:0/96", "IPv4-mapped"), ("64:ff9b::/96", "NAT64"),
    ("2000::/3", "global unicast"),
]


def fail(message):
    print("ERROR: " + message)
    sys.exit(2)


def read_arguments():
    text = ""
    if sys.stdin is not None and not sys.stdin.isatty():
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            fail("arguments are larger than %d bytes" % MAX_INPUT_BYTES)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            fail("arguments on stdin are not UTF-8 text")
    if not text.strip():
        text = os.environ.get("SKILLGATE_SKILL_ARGS", "")
    if not text.strip():
        fail('no arguments; send a JSON object such as {"operation": "info", "network": "192.168.1.0/24"}')
    try:
        value = json.loads(text)
    except ValueError as error:
        fail("arguments are not valid JSON: %s" % error)
    if not isinstance(value, dict):
        fail("arguments must be a JSON object")
    return value


def parse_network(label, text):
    """A network from CIDR or address/netmask text; host bits are allowed and reported."""
    if not isinstance(text, str) or not text.strip():
        fail('%s must be a network such as "192.168.1.0/24" or "fd00::/64"' % label)
    text = text.strip()
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError as error:
        fail("%s %s is not a network: %s" % (label, json.dumps(text), error))
    host = None
    if "/" in text:
        address = ipaddress.ip_address(text.split("/", 1)[0])
        if address != network.network_address:
            host = address
    return network, host


def kind_of(network):
    for cidr, kind in KINDS:
        known = ipaddress.ip_network(cidr)
        if known.version == network.version and network.subnet_of(known):
            return kind
    if network.version == 4:
        if any(ipaddress.ip_network(cidr).subnet_of(network) for cidr, _ in KINDS if "." in cidr):
            return "spans several kinds of range (contains private or special ranges)"
        return "public"
    return "spans several kinds of range" if network.prefixlen < 3 else "not in a common IPv6 range"


def reverse_zone(network):
    if network.version == 4:
        octets = str(network.network_address).split(".")
        if network.prefixlen % 8 == 0:
            kept = octets[:network.prefixlen // 8]
            return ".".join(reversed(kept)) + ".in-addr.arpa" if kept else "in-addr.arpa"
        return "not on an octet boundary: delegate with RFC 2317 (classless) or use the /%d zone %s" % (
            network.prefixlen // 8 * 8, reverse_zone(network.supernet(new_prefix=network.prefixlen // 8 * 8)))
    nibbles = network.network_address.exploded.replace(":", "")
    if network.prefixlen % 4 == 0:
        kept = nibbles[:network.prefixlen // 4]
        return ".".join(reversed(kept)) + ".ip6.arpa"
    return "not on a nibble boundary (prefix length is not a multiple of 4)"


def host_range(network):
    """The usable host range: all but network and broadcast for IPv4, except /31 and /32."""
    if network.version == 4 and network.prefixlen < 31:
        return network.network_address + 1, network.broadcast_address - 1, network.num_addresses - 2
    return network.network_address, network.broadcast_address, network.num_addresses


def count_text(number):
    """Large powers of two (IPv6 sizes) read better as 2^n."""
    if number > 2 ** 32 and number & (number - 1) == 0:
        return "2^%d" % (number.bit_length() - 1)
    return "%d" % number


def run_info(arguments):
    network, host = parse_network("network", arguments.get("network"))
    first, last, usable = host_range(network)
    print("Network:      %s (IPv%d)" % (network, network.version))
    if host is not None:
        print("Input host:   %s (the input had host bits set; the network it belongs to is shown)" % host)
    if network.version == 4:
        print("Netmask:      %s" % network.netmask)
        print("Wildcard:     %s" % network.hostmask)
        print("Broadcast:    %s" % (network.broadcast_address if network.prefixlen < 31 else "none (/%d)" % network.prefixlen))
        binary = ".".join(format(int(octet), "08b") for octet in str(network.network_address).split("."))
        print("Binary:       %s" % binary)
    else:
        print("Expanded:     %s" % network.network_address.exploded)
        print("Last address: %s" % network.broadcast_address)
    print("Addresses:    %s" % count_text(network.num_addresses))
    print("Usable hosts: %s - %s (%s)" % (first, last, count_text(usable)))
    if network.version == 4 and network.prefixlen == 31:
        print("Note:         a /31 is a point-to-point link (RFC 3021): both addresses are usable")
    if network.version == 6 and network.prefixlen > 64:
        print("Note:         prefixes longer than /64 break SLAAC; use /64 for LAN segments")
    print("Kind:         %s" % kind_of(network))
    print("Reverse zone: %s" % reverse_zone(network))


def read_list(arguments, key, example):
    items = arguments.get(key)
    if not isinstance(items, list) or not items or not all(isinstance(item, str) for item in items):
        fail("%s must be a non-empty list of strings such as %s" % (key, example))
    if len(items) > MAX_ITEMS:
        fail("%s has %d items; the limit is %d" % (key, len(items), MAX_ITEMS))
    return items


def run_contains(arguments):
    network, _ = parse_network("network", arguments.get("network"))
    items = read_list(arguments, "addresses", '["192.168.1.20", "10.0.0.0/24"]')
    candidates = [(item, parse_network("address", item)[0]) for item in items]
    print("Network: %s" % network)
    inside = 0
    for item, candidate in candidates:
        if candidate.version != network.version:
            verdict = "outside (IPv%d, the network is IPv%d)" % (candidate.version, network.version)
        elif candidate.subnet_of(network):
            verdict, inside = "inside", inside + 1
            if candidate.num_addresses > 1:
                verdict = "inside (a subnet of it)"
            elif network.version == 4 and network.prefixlen < 31 and candidate.network_address in (
                    network.network_address, network.broadcast_address):
                verdict = "inside, but it is the %s address, not a usable host" % (
                    "network" if candidate.network_address == network.network_address else "broadcast")
        elif candidate.overlaps(network):
            verdict = "partly inside (it is larger than the network and contains it)"
        else:
            verdict = "outside"
        print("  %-40s %s" % (item.strip(), verdict))
    print("%d of %d inside." % (inside, len(items)))


def run_split(arguments):
    network, _ = parse_network("network", arguments.get("network"))
    has_prefix, has_count = "new_prefix" in arguments, "subnets" in arguments
    if has_prefix == has_count:
        fail("split needs exactly one of new_prefix (such as 26) or subnets (how many you need, such as 4)")
    if has_prefix:
        new_prefix = arguments["new_prefix"]
        if isinstance(new_prefix, bool) or not isinstance(new_prefix, int):
            fail("new_prefix must be a whole number")
    else:
        wanted = arguments["subnets"]
        if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 1:
            fail("subnets must be a whole number of 1 or more")
        new_prefix = network.prefixlen + (wanted - 1).bit_length()
    if not network.prefixlen < new_prefix <= network.max_prefixlen:
        fail("the new prefix must be longer than /%d and at most /%d (got /%d)"
             % (network.prefixlen, network.max_prefixlen, new_prefix))
    total = 2 ** (new_prefix - network.prefixlen)
    print("Splitting %s into %s subnets of /%d:" % (network, count_text(total), new_prefix))
    for number, subnet in enumerate(network.subnets(new_prefix=new_prefix)):
        if number == MAX_LISTED:
            print("  ... %s more not listed" % count_text(total - MAX_LISTED))
            break
        first, last, usable = host_range(subnet)
        print("  %-43s hosts %s - %s (%s)" % (subnet, first, last, count_text(usable)))


def run_summarize(arguments):
    items = read_list(arguments, "networks", '["192.168.0.0/24", "192.168.1.0/24"]')
    by_version = {4: [], 6: []}
    parsed = [(item, parse_network("network", item)) for item in items]
    for item, (network, host) in parsed:
        if host is not None:
            print("Note: %s has host bits set; read as %s" % (item.strip(), network))
        by_version[network.version].append(network)
    for version, networks in by_version.items():
        if not networks:
            continue
        ordered = sorted(set(networks))
        collapsed = list(ipaddress.collapse_addresses(ordered))
        one = len(networks) == 1
        print("IPv%d: %d network%s collapse%s to %d:" % (version, len(networks), "" if one else "s",
                                                        "s" if one else "", len(collapsed)))
        for network in collapsed:
            print("  %s" % network)
        report_overlaps(ordered, len(networks) - len(ordered))
        cover = ordered[0]
        while not all(network.subnet_of(cover) for network in ordered):
            cover = cover.supernet()
        print("  smallest single network covering all: %s (%s addresses)" % (cover, count_text(cover.num_addresses)))


def report_overlaps(ordered, duplicates):
    if duplicates:
        print("  %d duplicate entr%s" % (duplicates, "y" if duplicates == 1 else "ies"))
    overlaps, widest = [], None
    for network in ordered:
        if widest is not None and network.subnet_of(widest):
            overlaps.append("%s lies inside %s" % (network, widest))
        if widest is None or network.broadcast_address > widest.broadcast_address:
            widest = network
    if not overlaps:
        print("  no overlaps")
    for line in overlaps[:50]:
        print("  overlap: " + line)
    if len(overlaps) > 50:
        print("  ... %d more overlaps" % (len(overlaps) - 50))


def main():
    arguments = read_arguments()
    unknown = sorted(set(arguments) - KNOWN_KEYS)
    if unknown:
        fail("unknown argument %s; expected: %s" % (", ".join(unknown), ", ".join(sorted(KNOWN_KEYS - {"node"}))))
    operation = arguments.get("operation")
    if operation not in OPERATIONS:
        fail("operation must be one of %s (got %s)" % (", ".join(OPERATIONS), json.dumps(operation)))
    {"info": run_info, "contains": run_contains, "split": run_split, "summarize": run_summarize}[operation](arguments)


if __name__ == "__main__":
    main()
