import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** Why an address is never connected to. */
export type BlockedCategory =
  | "loopback"
  | "link_local"
  | "metadata"
  | "unspecified"
  | "private"
  | "cgnat"
  | "multicast"
  | "reserved"
  | "interface"
  | "invalid";

/** One blocked network. Order matters: the first match names the category. */
export interface BlockedRange {
  readonly category: Exclude<BlockedCategory, "interface" | "invalid">;
  readonly network: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

/**
 * The networks the proxy never connects to, whatever the allow-list says: a skill allowed
 * `api.example.com` must not reach the host, its LAN or the cloud metadata service because
 * the name resolves there. Beyond the required ranges, `0/8` ("this network", which Linux
 * routes to the host), multicast and the reserved `240/4` are blocked: no public API lives there.
 */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  { category: "metadata", network: "169.254.169.254", prefix: 32, family: "ipv4" },
  { category: "metadata", network: "fd00:ec2::254", prefix: 128, family: "ipv6" },
  { category: "loopback", network: "127.0.0.0", prefix: 8, family: "ipv4" },
  { category: "loopback", network: "::1", prefix: 128, family: "ipv6" },
  { category: "unspecified", network: "0.0.0.0", prefix: 8, family: "ipv4" },
  { category: "unspecified", network: "::", prefix: 128, family: "ipv6" },
  { category: "link_local", network: "169.254.0.0", prefix: 16, family: "ipv4" },
  { category: "link_local", network: "fe80::", prefix: 10, family: "ipv6" },
  { category: "private", network: "10.0.0.0", prefix: 8, family: "ipv4" },
  { category: "private", network: "172.16.0.0", prefix: 12, family: "ipv4" },
  { category: "private", network: "192.168.0.0", prefix: 16, family: "ipv4" },
  { category: "private", network: "fc00::", prefix: 7, family: "ipv6" },
  { category: "private", network: "fec0::", prefix: 10, family: "ipv6" },
  { category: "cgnat", network: "100.64.0.0", prefix: 10, family: "ipv4" },
  { category: "multicast", network: "224.0.0.0", prefix: 4, family: "ipv4" },
  { category: "multicast", network: "ff00::", prefix: 8, family: "ipv6" },
  { category: "reserved", network: "240.0.0.0", prefix: 4, family: "ipv4" },
];

/** Decides whether the proxy may connect to an address. */
export interface AddressBlock {
  /** The reason an address is blocked, or `undefined` when the proxy may connect to it. */
  blockedCategory(address: string): BlockedCategory | undefined;
}

/** Options of {@link createAddressBlock}. */
export interface AddressBlockOptions {
  /**
   * Categories to lift. Only tests should pass this: e.g. `["loopback", "interface"]` lets a
   * test reach its own server on 127.0.0.1 (the loopback interface's addresses are interface
   * addresses too).
   */
  readonly except?: readonly BlockedCategory[];
  /** The host's interfaces; read from `os.networkInterfaces()` once, when the block is made. */
  readonly interfaces?: ReturnType<typeof networkInterfaces>;
}

/**
 * The default block: {@link BLOCKED_RANGES} plus every address of this host's interfaces
 * (so a service bound to the host's public address is not reachable either). IPv6 forms
 * that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that IPv4 address too. Anything that is
 * not an IP address is `invalid`.
 */
export function createAddressBlock(options: AddressBlockOptions = {}): AddressBlock {
  const lifted = new Set(options.except ?? []);
  const lists: Array<{ category: BlockedCategory; list: BlockList }> = [];
  for (const range of BLOCKED_RANGES) {
    if (lifted.has(range.category)) continue;
    const list = new BlockList();
    list.addSubnet(range.network, range.prefix, range.family);
    lists.push({ category: range.category, list });
  }
  if (!lifted.has("interface")) {
    const own = new BlockList();
    for (const addresses of Object.values(options.interfaces ?? networkInterfaces())) {
      for (const info of addresses ?? []) {
        const address = withoutZone(info.address);
        const family = isIP(address);
        if (family !== 0) own.addAddress(address, family === 4 ? "ipv4" : "ipv6");
      }
    }
    lists.push({ category: "interface", list: own });
  }
  const judge = (address: string, family: "ipv4" | "ipv6"): BlockedCategory | undefined =>
    lists.find((entry) => entry.list.check(address, family))?.category;

  return {
    blockedCategory(raw) {
      const address = withoutZone(raw);
      const family = isIP(address);
      if (family === 0) return lifted.has("invalid") ? undefined : "invalid";
      if (family === 4) return judge(address, "ipv4");
      const direct = judge(address, "ipv6");
      if (direct !== undefined) return direct;
      const embedded = embeddedIPv4(address);
      return embedded === undefined ? undefined : judge(embedded, "ipv4");
    },
  };
}

function withoutZone(address: string): string {
  const percent = address.indexOf("%");
  return percent === -1 ? address : address.slice(0, percent);
}

/** The IPv4 address inside a mapped, compatible, NAT64 or 6to4 IPv6 address, if any. */
export function embeddedIPv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups === undefined) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0xffff) return dotted(g6, g7);
  // IPv4-compatible (deprecated); `::` and `::1` (and the rest of ::/112) are not IPv4 in disguise.
  if (firstFiveZero && g5 === 0 && g6 !== 0) return dotted(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dotted(g6, g7);
  if (g0 === 0x2002) return dotted(g1, g2);
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address (with or without a dotted IPv4 tail). */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::") as [string, string | undefined];
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
