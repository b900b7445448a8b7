import { describe, expect, it } from "vitest";
import { byMessage, outputLines, runScript, type ScriptRun } from "./run-script.js";

const SCRIPT = "scripts/subnet_calc.py";

function run(args: unknown): ScriptRun {
  const result = runScript("subnet-calc", SCRIPT, args);
  expect(result.leftInWorkingFolder).toEqual([]);
  expect(result.changedSkillFolder).toBe(false);
  expect(result.stderr).toBe("");
  return result;
}

/** The value after "Label:" in info output. */
function fact(result: ScriptRun, label: string): string | undefined {
  const line = outputLines(result).find((text) => text.startsWith(`${label}:`));
  return line?.slice(label.length + 1).trim();
}

describe("subnet-calc info", () => {
  it("gives every fact about a LAN from a host address", () => {
    const result = run({ operation: "info", network: "192.168.1.77/24" });
    expect(result.status).toBe(0);
    expect(outputLines(result)).toEqual([
      "Network:      192.168.1.0/24 (IPv4)",
      "Input host:   192.168.1.77 (the input had host bits set; the network it belongs to is shown)",
      "Netmask:      255.255.255.0",
      "Wildcard:     0.0.0.255",
      "Broadcast:    192.168.1.255",
      "Binary:       11000000.10101000.00000001.00000000",
      "Addresses:    256",
      "Usable hosts: 192.168.1.1 - 192.168.1.254 (254)",
      "Kind:         private (RFC 1918)",
      "Reverse zone: 1.168.192.in-addr.arpa",
    ]);
  });

  it.each([
    ["10.0.0.0/31", "10.0.0.0 - 10.0.0.1 (2)", "none (/31)"],
    ["10.0.0.5/32", "10.0.0.5 - 10.0.0.5 (1)", "none (/32)"],
    ["172.20.0.0/14", "172.20.0.1 - 172.23.255.254 (262142)", "172.23.255.255"],
  ])("%s has the right host range and broadcast", (network, hosts, broadcast) => {
    const result = run({ operation: "info", network });
    expect(fact(result, "Usable hosts")).toBe(hosts);
    expect(fact(result, "Broadcast")).toBe(broadcast);
  });

  it("explains a /31 point-to-point link", () => {
    const result = run({ operation: "info", network: "10.0.0.0/31" });
    expect(fact(result, "Note")).toBe("a /31 is a point-to-point link (RFC 3021): both addresses are usable");
  });

  it.each([
    ["100.100.1.1/32", "shared address space (RFC 6598: carrier-grade NAT, also used by Tailscale)"],
    ["169.254.10.0/24", "link-local (APIPA)"],
    ["8.8.8.0/24", "public"],
    ["203.0.113.0/24", "documentation (TEST-NET-3)"],
    ["0.0.0.0/0", "spans several kinds of range (contains private or special ranges)"],
    ["fd12:3456:789a::/48", "unique local (ULA, the IPv6 private range)"],
    ["fe80::/64", "link-local"],
    ["2001:db8::/32", "documentation"],
    ["2a01:4f8::/32", "global unicast"],
  ])("%s is %s", (network, kind) => {
    expect(fact(run({ operation: "info", network }), "Kind")).toBe(kind);
  });

  it("gives IPv6 facts without a broadcast, sizes as powers of two", () => {
    const result = run({ operation: "info", network: "fd12:3456:789a::/48" });
    expect(fact(result, "Broadcast")).toBeUndefined();
    expect(fact(result, "Expanded")).toBe("fd12:3456:789a:0000:0000:0000:0000:0000");
    expect(fact(result, "Addresses")).toBe("2^80");
    expect(fact(result, "Reverse zone")).toBe("a.9.8.7.6.5.4.3.2.1.d.f.ip6.arpa");
  });

  it("warns that prefixes longer than /64 break SLAAC", () => {
    expect(fact(run({ operation: "info", network: "fd00::/80" }), "Note")).toBe(
      "prefixes longer than /64 break SLAAC; use /64 for LAN segments",
    );
  });

  it("explains reverse zones off an octet boundary", () => {
    expect(fact(run({ operation: "info", network: "8.8.8.0/26" }), "Reverse zone")).toBe(
      "not on an octet boundary: delegate with RFC 2317 (classless) or use the /24 zone 8.8.8.in-addr.arpa",
    );
  });

  it("reads address/netmask notation", () => {
    expect(fact(run({ operation: "info", network: "10.1.0.0/255.255.0.0" }), "Network")).toBe(
      "10.1.0.0/16 (IPv4)",
    );
  });
});

describe("subnet-calc contains", () => {
  it("marks each address and subnet inside, outside or special", () => {
    const result = run({
      operation: "contains",
      network: "192.168.1.0/24",
      addresses: [
        "192.168.1.20",
        "192.168.1.255",
        "192.168.2.1",
        "192.168.1.128/25",
        "192.168.0.0/16",
        "fe80::1",
      ],
    });
    const verdicts = outputLines(result)
      .slice(1, -1)
      .map((line) => line.trim().split(/\s{2,}/));
    expect(verdicts).toEqual([
      ["192.168.1.20", "inside"],
      ["192.168.1.255", "inside, but it is the broadcast address, not a usable host"],
      ["192.168.2.1", "outside"],
      ["192.168.1.128/25", "inside (a subnet of it)"],
      ["192.168.0.0/16", "partly inside (it is larger than the network and contains it)"],
      ["fe80::1", "outside (IPv6, the network is IPv4)"],
    ]);
    expect(outputLines(result).at(-1)).toBe("3 of 6 inside.");
  });
});

describe("subnet-calc split", () => {
  it("rounds a subnet count up to a power of two", () => {
    const result = run({ operation: "split", network: "10.0.0.0/24", subnets: 3 });
    expect(outputLines(result).map((line) => line.replace(/\s+/g, " ").trim())).toEqual([
      "Splitting 10.0.0.0/24 into 4 subnets of /26:",
      "10.0.0.0/26 hosts 10.0.0.1 - 10.0.0.62 (62)",
      "10.0.0.64/26 hosts 10.0.0.65 - 10.0.0.126 (62)",
      "10.0.0.128/26 hosts 10.0.0.129 - 10.0.0.190 (62)",
      "10.0.0.192/26 hosts 10.0.0.193 - 10.0.0.254 (62)",
    ]);
  });

  it("lists the first 64 subnets of a large split and counts the rest", () => {
    const lines = outputLines(run({ operation: "split", network: "2001:db8::/48", new_prefix: 64 }));
    expect(lines[0]).toBe("Splitting 2001:db8::/48 into 65536 subnets of /64:");
    expect(lines).toHaveLength(66);
    expect(lines[1]?.trim().startsWith("2001:db8::/64 ")).toBe(true);
    expect(lines.at(-1)).toBe("  ... 65472 more not listed");
  });
});

describe("subnet-calc summarize", () => {
  it("collapses networks, counts duplicates, finds overlaps and a covering network", () => {
    const result = run({
      operation: "summarize",
      networks: [
        "192.168.0.0/24",
        "192.168.1.0/24",
        "192.168.1.0/25",
        "192.168.1.0/24",
        "fd00::/64",
        "fd00:0:0:1::/64",
      ],
    });
    expect(outputLines(result)).toEqual([
      "IPv4: 4 networks collapse to 1:",
      "  192.168.0.0/23",
      "  1 duplicate entry",
      "  overlap: 192.168.1.0/25 lies inside 192.168.1.0/24",
      "  smallest single network covering all: 192.168.0.0/23 (512 addresses)",
      "IPv6: 2 networks collapse to 1:",
      "  fd00::/63",
      "  no overlaps",
      "  smallest single network covering all: fd00::/63 (2^65 addresses)",
    ]);
  });

  it("finds the Docker default network inside 172.16.0.0/12", () => {
    const result = run({
      operation: "summarize",
      networks: ["172.17.0.0/16", "172.16.0.0/12", "10.8.0.0/24"],
    });
    expect(outputLines(result)).toContain("  overlap: 172.17.0.0/16 lies inside 172.16.0.0/12");
  });

  it("notes a network written with host bits", () => {
    const result = run({ operation: "summarize", networks: ["10.0.0.7/24"] });
    expect(outputLines(result)[0]).toBe("Note: 10.0.0.7/24 has host bits set; read as 10.0.0.0/24");
    expect(outputLines(result)[1]).toBe("IPv4: 1 network collapses to 1:");
  });
});

describe("subnet-calc refuses bad arguments", () => {
  it.each(
    byMessage([
      [
        { operation: "calc" },
        'ERROR: operation must be one of info, contains, split, summarize (got "calc")',
      ],
      [{ operation: "info" }, 'ERROR: network must be a network such as "192.168.1.0/24" or "fd00::/64"'],
      [{ operation: "info", network: "192.168.1.0/33" }, 'ERROR: network "192.168.1.0/33" is not a network'],
      [{ operation: "info", network: "300.1.1.1" }, 'ERROR: network "300.1.1.1" is not a network'],
      [{ operation: "info", network: "example.com" }, 'ERROR: network "example.com" is not a network'],
      [
        { operation: "contains", network: "10.0.0.0/8" },
        "ERROR: addresses must be a non-empty list of strings",
      ],
      [
        { operation: "contains", network: "10.0.0.0/8", addresses: ["x"] },
        'ERROR: address "x" is not a network',
      ],
      [
        { operation: "split", network: "10.0.0.0/24" },
        "ERROR: split needs exactly one of new_prefix (such as 26) or subnets",
      ],
      [
        { operation: "split", network: "10.0.0.0/24", new_prefix: 26, subnets: 4 },
        "ERROR: split needs exactly one of",
      ],
      [
        { operation: "split", network: "10.0.0.0/24", new_prefix: 20 },
        "ERROR: the new prefix must be longer than /24 and at most /32 (got /20)",
      ],
      [
        { operation: "split", network: "10.0.0.0/24", subnets: 0 },
        "ERROR: subnets must be a whole number of 1 or more",
      ],
      [
        { operation: "split", network: "10.0.0.0/24", subnets: 512 },
        "ERROR: the new prefix must be longer than /24 and at most /32 (got /33)",
      ],
      [
        { operation: "summarize", networks: "10.0.0.0/8" },
        "ERROR: networks must be a non-empty list of strings",
      ],
      [{ operation: "summarize", networks: ["10.0.0.7/24", "bad"] }, 'ERROR: network "bad" is not a network'],
      [
        { operation: "summarize", networks: Array.from({ length: 1001 }, () => "10.0.0.0/8") },
        "ERROR: networks has 1001 items; the limit is 1000",
      ],
    ]),
  )("%s", (message, args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });
});
