import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import {
  type BlockedCategory,
  createAddressBlock,
  embeddedIPv4,
} from "../../../src/runners/proxy/address-block.js";
import { resolveChecked } from "../../../src/runners/proxy/resolve.js";

// No interfaces: these cases judge the fixed ranges alone, the same on every machine.
const block = createAddressBlock({ interfaces: {} });

describe("createAddressBlock", () => {
  const cases: Array<[string, BlockedCategory | undefined]> = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["169.254.1.1", "link_local"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf::1", "link_local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["::10.1.2.3", "private"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["64:ff9b::192.168.0.1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:a00:1::", "private"],
    ["not an address", "invalid"],
    ["", "invalid"],
    ["127.0.0.1.", "invalid"],
    // Public: the proxy may connect.
    ["93.184.216.34", undefined],
    ["172.32.0.1", undefined],
    ["100.128.0.1", undefined],
    ["2606:2800:220:1:248:1893:25c8:1946", undefined],
    ["::ffff:93.184.216.34", undefined],
    ["2002:5db8:d822::1", undefined],
  ];
  it.each(cases)("%j is %s", (address, category) => {
    expect(block.blockedCategory(address)).toBe(category);
  });

  it("blocks every address of this host's interfaces by default", () => {
    const own = Object.values(networkInterfaces()).flatMap((list) =>
      (list ?? []).map((info) => info.address),
    );
    expect(own.length).toBeGreaterThan(0);
    const defaultBlock = createAddressBlock();
    for (const address of own) expect(defaultBlock.blockedCategory(address)).toBeDefined();
  });

  it("blocks an interface address outside every fixed range as interface", () => {
    const withPublicInterface = createAddressBlock({
      interfaces: {
        eth0: [
          {
            address: "198.51.100.7",
            netmask: "255.255.255.0",
            family: "IPv4",
            mac: "00:00:00:00:00:00",
            internal: false,
            cidr: "198.51.100.7/24",
          },
        ],
      },
    });
    expect(withPublicInterface.blockedCategory("198.51.100.7")).toBe("interface");
    expect(withPublicInterface.blockedCategory("198.51.100.8")).toBeUndefined();
  });

  it("lifts only the categories named in except", () => {
    const lifted = createAddressBlock({ except: ["loopback", "interface"] });
    expect(lifted.blockedCategory("127.0.0.1")).toBeUndefined();
    expect(lifted.blockedCategory("::1")).toBeUndefined();
    expect(lifted.blockedCategory("10.0.0.1")).toBe("private");
    expect(lifted.blockedCategory("169.254.169.254")).toBe("metadata");
  });
});

describe("embeddedIPv4", () => {
  it.each([
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:102:304", "1.2.3.4"],
    ["::1.2.3.4", "1.2.3.4"],
    ["64:ff9b::102:304", "1.2.3.4"],
    ["2002:102:304::", "1.2.3.4"],
    ["2001:db8::1", undefined],
    ["1.2.3.4", undefined],
  ])("%j carries %s", (address, embedded) => {
    expect(embeddedIPv4(address)).toBe(embedded);
  });
});

describe("resolveChecked", () => {
  const check = (resolve: (host: string) => Promise<unknown>) =>
    resolveChecked("allowed.test", resolve as never, block, 200);

  it("refuses when any one address is blocked, even after a public one", async () => {
    const result = await check(async () => [
      { address: "203.0.113.7", family: 4 },
      { address: "10.0.0.1", family: 4 },
    ]);
    expect(result).toEqual({
      ok: false,
      reason: "blocked_address",
      blocked: { address: "10.0.0.1", category: "private" },
    });
  });

  it("returns every address, with the family taken from the address", async () => {
    const result = await check(async () => [
      { address: "203.0.113.7", family: 6 },
      { address: "2001:db8::7", family: 4 },
    ]);
    expect(result).toEqual({
      ok: true,
      addresses: [
        { address: "203.0.113.7", family: 4 },
        { address: "2001:db8::7", family: 6 },
      ],
    });
  });

  it.each([
    ["a resolver that throws", async () => Promise.reject(new Error("ENOTFOUND"))],
    ["no addresses", async () => []],
    ["not a list", async () => "203.0.113.7"],
    ["a resolver that never answers", () => new Promise(() => {})],
  ])("%s is resolve_failed", async (_label, resolve) => {
    expect(await check(resolve)).toEqual({ ok: false, reason: "resolve_failed" });
  });

  it("refuses a resolver answer that is not an address", async () => {
    expect(await check(async () => [{ address: "allowed.test", family: 4 }])).toMatchObject({
      ok: false,
      reason: "blocked_address",
      blocked: { category: "invalid" },
    });
  });
});
