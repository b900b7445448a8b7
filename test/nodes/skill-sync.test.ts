import { generateKeyPairSync } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { sha256Hex } from "../../src/core/hashing.js";
import { ControllerClient } from "../../src/nodes/agent/controller-client.js";
import { SkillCache } from "../../src/nodes/agent/skill-cache.js";
import { SkillSync } from "../../src/nodes/agent/skill-sync.js";
import { signManifest } from "../../src/nodes/manifest/manifest-codec.js";
import { packFolder } from "../../src/nodes/packages/package-builder.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { makeTree } from "../helpers/skill-tree.js";
import { listTree, rawTarGz, skillFiles, writeSkill } from "./package-fixtures.js";
import { startTestController, type TestController } from "./package-server.js";

interface World {
  readonly tree: string;
  readonly controller: TestController;
  readonly cache: SkillCache;
  readonly sync: SkillSync;
  readonly agentData: string;
  offer(name: string, extra?: Record<string, string>): string;
  newSync(options?: { clock?: ManualClock }): SkillSync;
}

async function world(): Promise<World> {
  const tree = makeTree("skillgate-sync-");
  const controller = await startTestController(tree);
  const agentData = join(tree, "agent");
  const cache = new SkillCache({ dataFolder: agentData });
  const newSync = (options: { clock?: ManualClock } = {}): SkillSync =>
    new SkillSync({
      node: controller.node,
      controllerPublicKey: controller.issuer.publicKeyPem,
      transport: new ControllerClient({ controllerUrl: controller.url, credential: controller.credential }),
      cache,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  const offer = (name: string, extra: Record<string, string> = {}): string => {
    const folder = join(tree, "skills", name);
    const hash = writeSkill(folder, skillFiles(name, extra));
    controller.offered.set(name, { name, hash, folder });
    return hash;
  };
  return { tree, controller, cache, sync: newSync(), agentData, offer, newSync };
}

/** What the agent holds, as `name@hash` keys, and the folders in its cache. */
function snapshotOf(w: World): { held: string[]; folders: string[] } {
  return {
    held: [...w.cache.held()].map(([name, hash]) => `${name}@${hash}`).sort(),
    folders: readdirSync(w.cache.folder).sort(),
  };
}

describe("SkillSync over HTTP", () => {
  it("installs a fresh set with restrictive modes, and a second sync downloads nothing", async () => {
    const w = await world();
    const alpha = w.offer("alpha");
    const beta = w.offer("beta");
    const report = await w.sync.sync();
    expect(report).toMatchObject({
      ok: true,
      installed: [`alpha@${alpha}`, `beta@${beta}`],
      removed: [],
      failed: [],
      sequence: w.controller.issuer.currentSequence(),
    });
    expect(report.downloadedBytes).toBeGreaterThan(0);
    expect(w.cache.held()).toEqual(
      new Map([
        ["alpha", alpha],
        ["beta", beta],
      ]),
    );
    const folder = w.cache.folderOf("alpha", alpha);
    expect(folder).toBe(join(w.cache.folder, `alpha@${alpha}`));
    expect(hashSkillFolder(folder as string).hash).toBe(alpha);
    expect(listTree(folder as string)).toEqual(["SKILL.md 600", "scripts 700", "scripts/run.py 600"]);
    expect(snapshotOf(w).folders).toEqual([`alpha@${alpha}`, `beta@${beta}`, "held.json"]);
    const again = await w.sync.sync();
    expect(again).toMatchObject({ ok: true, installed: [], removed: [], failed: [], downloadedBytes: 0 });
    expect(w.controller.downloads).toHaveLength(2);
    // A restarted agent holds the same set and remembers the sequence.
    const restarted = new SkillCache({ dataFolder: w.agentData });
    expect(restarted.held()).toEqual(w.cache.held());
    expect(restarted.lastSequence()).toBe(again.sequence);
  });

  it("replaces an edited skill's hash, prunes a disabled one, and refuses the old hash afterwards", async () => {
    const w = await world();
    const oldAlpha = w.offer("alpha");
    const beta = w.offer("beta");
    await w.sync.sync();
    const newAlpha = w.offer("alpha", { "references/notes.md": "edited\n" });
    w.controller.offered.delete("beta");
    const report = await w.sync.sync();
    expect(report).toMatchObject({
      ok: true,
      installed: [`alpha@${newAlpha}`],
      removed: [`alpha@${oldAlpha}`, `beta@${beta}`],
      failed: [],
    });
    expect(w.cache.folderOf("alpha", oldAlpha)).toBeUndefined();
    expect(w.cache.folderOf("beta", beta)).toBeUndefined();
    expect(w.cache.folderOf("alpha", newAlpha)).toBeDefined();
    expect(snapshotOf(w)).toEqual({
      held: [`alpha@${newAlpha}`],
      folders: [`alpha@${newAlpha}`, "held.json"],
    });
  });

  it("refuses a package with one flipped byte by its SHA-256, installs nothing and keeps the previous set", async () => {
    const w = await world();
    w.offer("alpha");
    await w.sync.sync();
    const before = snapshotOf(w);
    const gamma = w.offer("gamma");
    const stored = await w.controller.packages.ensure(
      w.controller.offered.get("gamma") ?? { name: "", hash: "", folder: "" },
    );
    const bytes = readFileSync(stored.path);
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0xff;
    writeFileSync(stored.path, bytes);
    const report = await w.sync.sync();
    expect(report.ok).toBe(false);
    expect(report.failed).toEqual([
      expect.objectContaining({ name: "gamma", hash: gamma, code: "package_sha256_mismatch" }),
    ]);
    expect(snapshotOf(w)).toEqual(before);
    expect(w.cache.folderOf("gamma", gamma)).toBeUndefined();
  });

  it("keeps the good set when a package mid-sync is bad, caches the good ones, and completes once it is fixed", async () => {
    const w = await world();
    const alpha = w.offer("alpha");
    await w.sync.sync();
    const before = snapshotOf(w);
    const beta = w.offer("beta");
    const newAlpha = w.offer("alpha", { "more.md": "more" });
    const delta = w.offer("delta");
    w.controller.packageBytes = (name, _hash, bytes) =>
      name === "delta" ? Buffer.concat([bytes.subarray(0, 10), Buffer.alloc(bytes.length - 10)]) : bytes;
    const failed = await w.sync.sync();
    expect(failed.ok).toBe(false);
    expect(failed.installed).toEqual([]);
    expect(failed.removed).toEqual([]);
    expect(failed.failed).toEqual([
      expect.objectContaining({ name: "delta", hash: delta, code: "package_sha256_mismatch" }),
    ]);
    expect(snapshotOf(w).held).toEqual(before.held);
    expect(w.cache.folderOf("alpha", alpha)).toBeDefined();
    expect(w.cache.folderOf("beta", beta)).toBeUndefined();
    expect(w.cache.has("beta", beta)).toBe(true);
    w.controller.packageBytes = undefined;
    w.controller.downloads.length = 0;
    const fixed = await w.sync.sync();
    expect(fixed).toMatchObject({
      ok: true,
      installed: [`alpha@${newAlpha}`, `beta@${beta}`, `delta@${delta}`],
      removed: [`alpha@${alpha}`],
    });
    expect(w.controller.downloads).toEqual([`delta@${delta}`]);
  });

  const MIB = 1024 * 1024;
  const hostile: ReadonlyArray<readonly [string, () => Buffer, string]> = [
    [
      "a symbolic link",
      () => rawTarGz([{ path: "SKILL.md", type: "SymbolicLink", linkpath: "/etc/passwd" }]),
      "package_symlink",
    ],
    [
      "a hard link",
      () => rawTarGz([{ path: "SKILL.md", type: "Link", linkpath: "/etc/passwd" }]),
      "package_hardlink",
    ],
    ["a `..` path", () => rawTarGz([{ path: "../../escaped.txt", data: "x" }]), "package_path_not_allowed"],
    [
      "an absolute path",
      () => rawTarGz([{ path: "/tmp/escaped.txt", data: "x" }]),
      "package_path_not_allowed",
    ],
    [
      "an oversized entry",
      () => rawTarGz([{ path: "big.bin", data: Buffer.alloc(MIB + 1) }]),
      "package_entry_too_large",
    ],
    [
      "too many entries",
      () => rawTarGz(Array.from({ length: 201 }, (_, index) => ({ path: `f${index}`, data: "x" }))),
      "package_too_many_entries",
    ],
    ["a gzip bomb", () => gzipSync(Buffer.alloc(64 * MIB)), "package_too_large"],
    ["a device", () => rawTarGz([{ path: "dev", type: "CharacterDevice" }]), "package_special_entry"],
    ["a FIFO", () => rawTarGz([{ path: "fifo", type: "FIFO" }]), "package_special_entry"],
    ["not a tar", () => Buffer.from("definitely not a package"), "package_invalid"],
    [
      "a truncated archive",
      () => rawTarGz([{ path: "a", data: "y".repeat(5000) }]).subarray(0, 40),
      "package_invalid",
    ],
    ["other files than the hash", () => packFolder(writeOther()).bytes, "package_hash_mismatch"],
  ];

  function writeOther(): string {
    const folder = join(makeTree("skillgate-other-"), "other");
    writeSkill(folder, skillFiles("not-the-same"));
    return folder;
  }

  it.each(hostile)(
    "refuses a signed manifest's package with %s: nothing installed, previous set intact",
    async (_name, make, code) => {
      const w = await world();
      const alpha = w.offer("alpha");
      const first = await w.sync.sync();
      const before = snapshotOf(w);
      const bytes = make();
      const evilHash = "e".repeat(64);
      const alphaSkill = first.ok ? w.controller.packages.get("alpha", alpha) : undefined;
      if (alphaSkill === undefined) throw new Error("alpha was not installed");
      w.controller.manifest = () =>
        w.controller.issuer.sign(w.controller.node, [
          { name: "alpha", hash: alpha, sha256: alphaSkill.sha256, size: alphaSkill.size },
          { name: "evil", hash: evilHash, sha256: sha256Hex(bytes), size: bytes.length },
        ]).signed;
      w.controller.packageBytes = () => bytes;
      w.controller.offered.set("evil", { name: "evil", hash: evilHash, folder: "/nonexistent" });
      await w.controller.packages.ensure({
        name: "alpha",
        hash: alpha,
        folder: w.controller.offered.get("alpha")?.folder ?? "",
      });
      // The package route serves only kept packages: keep a placeholder for evil@eee… (its bytes are replaced).
      writeFileSync(w.controller.packages.pathOf("evil", evilHash), bytes);
      const report = await w.sync.sync();
      expect(report.ok).toBe(false);
      expect(report.failed).toEqual([expect.objectContaining({ name: "evil", hash: evilHash, code })]);
      expect(snapshotOf(w)).toEqual(before);
      expect(existsSync(join(w.tree, "escaped.txt"))).toBe(false);
      expect(existsSync(join(w.agentData, "escaped.txt"))).toBe(false);
    },
  );

  it("refuses a manifest with a bad signature, another key, an old sequence, a past expiry or another node", async () => {
    const w = await world();
    w.offer("alpha");
    await w.sync.sync();
    const before = snapshotOf(w);
    const firstServed = w.controller.served[0];
    const other = generateKeyPairSync("ed25519").privateKey;
    const current = w.controller.issuer.currentSequence();
    const forged = {
      node: w.controller.node,
      sequence: current + 100,
      issuedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      skills: [],
    };
    const cases: ReadonlyArray<readonly [() => unknown, string]> = [
      [() => ({ ...signManifest(forged, other), signature: "AAAA" }), "manifest_bad_signature"],
      [() => signManifest(forged, other), "manifest_bad_signature"],
      [() => firstServed, "manifest_replayed"],
      [() => w.controller.issuer.sign("lab02", []).signed, "manifest_wrong_node"],
      [() => ({ nothing: true }), "manifest_invalid"],
    ];
    for (const [manifest, code] of cases) {
      w.controller.manifest = manifest;
      const report = await w.sync.sync();
      expect(report.manifestError?.code, code).toBe(code);
      expect(report.ok).toBe(false);
      expect(snapshotOf(w)).toEqual(before);
    }
    w.controller.manifest = undefined;
    const late = w.newSync({ clock: new ManualClock(Date.now() + 11 * 60 * 1000) });
    expect((await late.sync()).manifestError?.code).toBe("manifest_expired");
    expect(snapshotOf(w)).toEqual(before);
  });

  it("joins a sync already running", async () => {
    const w = await world();
    w.offer("alpha");
    const [one, two] = await Promise.all([w.sync.sync(), w.sync.sync()]);
    expect(two).toBe(one);
    expect(w.controller.served).toHaveLength(1);
  });

  it("discards a held copy the run path found changed, and the next sync downloads it again", async () => {
    const w = await world();
    const alpha = w.offer("alpha");
    await w.sync.sync();
    expect(w.cache.discard("alpha", "0".repeat(64))).toBe(false);
    expect(w.cache.discard("alpha", alpha)).toBe(true);
    expect(w.cache.folderOf("alpha", alpha)).toBeUndefined();
    expect(snapshotOf(w)).toEqual({ held: [], folders: ["held.json"] });
    expect(await w.sync.sync()).toMatchObject({ ok: true, installed: [`alpha@${alpha}`] });
  });

  it("drops a held copy damaged on disk when the agent starts, and downloads it again", async () => {
    const w = await world();
    const alpha = w.offer("alpha");
    await w.sync.sync();
    const folder = w.cache.folderOf("alpha", alpha) as string;
    writeFileSync(join(folder, "SKILL.md"), "damaged");
    const restarted = new SkillCache({ dataFolder: w.agentData });
    expect(restarted.held()).toEqual(new Map());
    expect(existsSync(folder)).toBe(false);
    const sync = new SkillSync({
      node: w.controller.node,
      controllerPublicKey: w.controller.issuer.publicKeyPem,
      transport: new ControllerClient({
        controllerUrl: w.controller.url,
        credential: w.controller.credential,
      }),
      cache: restarted,
    });
    expect(await sync.sync()).toMatchObject({ ok: true, installed: [`alpha@${alpha}`] });
  });
});
