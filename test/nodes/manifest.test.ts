import { generateKeyPairSync } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { loadControllerKey } from "../../src/nodes/manifest/controller-key.js";
import { MAX_MANIFEST_SKILLS, signManifest } from "../../src/nodes/manifest/manifest-codec.js";
import { DEFAULT_MANIFEST_EXPIRY_MS, ManifestIssuer } from "../../src/nodes/manifest/manifest-issuer.js";
import { ManifestSequence } from "../../src/nodes/manifest/manifest-sequence.js";
import { verifyManifest } from "../../src/nodes/manifest/verify-manifest.js";
import { PackageStore } from "../../src/nodes/packages/package-store.js";
import type { SkillsManifest } from "../../src/nodes/protocol.js";
import { makeTree } from "../helpers/skill-tree.js";
import { skillFiles, writeSkill } from "./package-fixtures.js";

const NOW = Date.parse("2026-12-02T08:00:00.000Z");
const HASH = "a".repeat(64);

function manifest(overrides: Partial<SkillsManifest> = {}): SkillsManifest {
  return {
    node: "lab01",
    sequence: 10,
    issuedAt: new Date(NOW).toISOString(),
    expiresAt: new Date(NOW + 60_000).toISOString(),
    skills: [{ name: "alpha", hash: HASH, sha256: "b".repeat(64), size: 300 }],
    ...overrides,
  };
}

describe("the controller key", () => {
  it("is made once, 0600, and read again after a restart", () => {
    const data = makeTree("skillgate-key-");
    const key = loadControllerKey(data);
    expect(statSync(key.path).mode & 0o777).toBe(0o600);
    expect(key.privateKey.asymmetricKeyType).toBe("ed25519");
    expect(key.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(loadControllerKey(data).publicKeyPem).toBe(key.publicKeyPem);
  });

  it("is never replaced when the file holds something else", () => {
    const data = makeTree("skillgate-key-");
    const key = loadControllerKey(data);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    writeFileSync(key.path, rsa);
    expect(() => loadControllerKey(data)).toThrowError(expect.objectContaining({ code: "io_error" }));
    writeFileSync(key.path, "not a key");
    expect(() => loadControllerKey(data)).toThrowError(expect.objectContaining({ code: "io_error" }));
    expect(readFileSync(key.path, "utf8")).toBe("not a key");
  });
});

describe("the manifest sequence", () => {
  it("grows on every issue, survives a restart, and never falls below the clock", () => {
    const data = makeTree("skillgate-sequence-");
    const clock = new ManualClock(1000);
    const sequence = new ManifestSequence(data, clock);
    expect(sequence.current()).toBe(0);
    expect(sequence.next()).toBe(1000);
    expect(sequence.next()).toBe(1001);
    expect(readFileSync(sequence.path, "utf8")).toBe("1001\n");
    const restarted = new ManifestSequence(data, new ManualClock(0));
    expect(restarted.current()).toBe(1001);
    expect(restarted.next()).toBe(1002);
    clock.advance(1_000_000);
    expect(new ManifestSequence(data, clock).next()).toBe(1_001_000);
  });

  it("refuses a sequence file that holds no number", () => {
    const data = makeTree("skillgate-sequence-");
    const sequence = new ManifestSequence(data);
    sequence.next();
    writeFileSync(sequence.path, "garbage");
    expect(() => new ManifestSequence(data).next()).toThrowError(
      expect.objectContaining({ code: "io_error" }),
    );
  });
});

describe("verifyManifest", () => {
  const data = makeTree("skillgate-verify-");
  const key = loadControllerKey(data);
  const other = generateKeyPairSync("ed25519");
  const expectations = { node: "lab01", lastSequence: 9, now: NOW };

  it("accepts a manifest signed with the pinned key, for this node, newer and not expired", () => {
    const verdict = verifyManifest(signManifest(manifest(), key.privateKey), key.publicKeyPem, expectations);
    expect(verdict).toEqual({ ok: true, manifest: manifest() });
  });

  const tampered = (() => {
    const signed = signManifest(manifest(), key.privateKey);
    const bytes = Buffer.from(signed.payload, "base64");
    bytes[bytes.indexOf("lab01") + 4] = "2".charCodeAt(0);
    return { payload: bytes.toString("base64"), signature: signed.signature };
  })();
  const huge = Buffer.alloc(1024 * 1024 + 10, 0x20).toString("base64");
  const refused: ReadonlyArray<readonly [string, unknown, string]> = [
    ["a changed payload", tampered, "manifest_bad_signature"],
    ["another key's signature", signManifest(manifest(), other.privateKey), "manifest_bad_signature"],
    [
      "a signature of another payload",
      {
        payload: signManifest(manifest(), key.privateKey).payload,
        signature: signManifest(manifest({ sequence: 11 }), key.privateKey).signature,
      },
      "manifest_bad_signature",
    ],
    [
      "the last sequence again (a replay)",
      signManifest(manifest({ sequence: 9 }), key.privateKey),
      "manifest_replayed",
    ],
    ["an older sequence", signManifest(manifest({ sequence: 3 }), key.privateKey), "manifest_replayed"],
    [
      "a past expiry",
      signManifest(manifest({ expiresAt: new Date(NOW - 1).toISOString() }), key.privateKey),
      "manifest_expired",
    ],
    [
      "another node's manifest",
      signManifest(manifest({ node: "lab02" }), key.privateKey),
      "manifest_wrong_node",
    ],
    ["no signature", { payload: signManifest(manifest(), key.privateKey).payload }, "manifest_invalid"],
    ["not an object", "manifest", "manifest_invalid"],
    ["a payload over 1 MiB", { payload: huge, signature: "AAAA" }, "manifest_invalid"],
    ["a payload that is not base64", { payload: "not base64!", signature: "AAAA" }, "manifest_invalid"],
    [
      "more than 1000 skills",
      signManifest(
        manifest({
          skills: Array.from({ length: MAX_MANIFEST_SKILLS + 1 }, (_, index) => ({
            name: `skill-${index}`,
            hash: HASH,
            sha256: HASH,
            size: 1,
          })),
        }),
        key.privateKey,
      ),
      "manifest_invalid",
    ],
    [
      "a short hash",
      signManifest(
        manifest({ skills: [{ name: "alpha", hash: "abc", sha256: HASH, size: 1 }] }),
        key.privateKey,
      ),
      "manifest_invalid",
    ],
    [
      "a name with a slash",
      signManifest(
        manifest({ skills: [{ name: "../alpha", hash: HASH, sha256: HASH, size: 1 }] }),
        key.privateKey,
      ),
      "manifest_invalid",
    ],
    [
      "a name listed twice",
      signManifest(
        manifest({
          skills: [
            { name: "alpha", hash: HASH, sha256: HASH, size: 1 },
            { name: "alpha", hash: "c".repeat(64), sha256: HASH, size: 1 },
          ],
        }),
        key.privateKey,
      ),
      "manifest_invalid",
    ],
    [
      "a size above the package limit",
      signManifest(
        manifest({ skills: [{ name: "alpha", hash: HASH, sha256: HASH, size: 64 * 1024 * 1024 }] }),
        key.privateKey,
      ),
      "manifest_invalid",
    ],
    [
      "an unknown field",
      signManifest({ ...manifest(), extra: true } as unknown as SkillsManifest, key.privateKey),
      "manifest_invalid",
    ],
  ];

  it.each(refused)("refuses %s", (_name, signed, code) => {
    const verdict = verifyManifest(signed, key.publicKeyPem, expectations);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.error.code).toBe(code);
  });

  it("refuses a bad signature before reading the payload", () => {
    const junk = { payload: Buffer.from("{not json").toString("base64"), signature: "AAAA" };
    const verdict = verifyManifest(junk, key.publicKeyPem, expectations);
    expect(verdict.ok === false && verdict.error.code).toBe("manifest_bad_signature");
  });
});

describe("ManifestIssuer", () => {
  it("ensures each skill's package and signs a manifest an agent accepts, leaving out one that moved", async () => {
    const tree = makeTree("skillgate-issuer-");
    const data = join(tree, "data");
    const clock = new ManualClock(NOW);
    const packages = new PackageStore({ dataFolder: data });
    const issuer = new ManifestIssuer({ dataFolder: data, packages, clock });
    const alphaFolder = join(tree, "alpha");
    const alphaHash = writeSkill(alphaFolder, skillFiles("alpha"));
    const betaFolder = join(tree, "beta");
    const betaHash = writeSkill(betaFolder, skillFiles("beta"));
    writeFileSync(join(betaFolder, "SKILL.md"), "moved on\n");
    const issued = await issuer.buildManifest("lab01", [
      { name: "beta", hash: betaHash, folder: betaFolder },
      { name: "alpha", hash: alphaHash, folder: alphaFolder },
    ]);
    const alpha = packages.get("alpha", alphaHash);
    expect(issued.manifest).toEqual({
      node: "lab01",
      sequence: NOW,
      issuedAt: new Date(NOW).toISOString(),
      expiresAt: new Date(NOW + DEFAULT_MANIFEST_EXPIRY_MS).toISOString(),
      skills: [{ name: "alpha", hash: alphaHash, sha256: alpha?.sha256, size: alpha?.size }],
    });
    expect(issued.skipped).toEqual([
      expect.objectContaining({ name: "beta", hash: betaHash, code: "package_build_failed" }),
    ]);
    const verdict = verifyManifest(issued.signed, issuer.publicKeyPem, {
      node: "lab01",
      lastSequence: 0,
      now: NOW,
    });
    expect(verdict).toEqual({ ok: true, manifest: issued.manifest });
    const next = await issuer.buildManifest("lab01", []);
    expect(next.manifest.sequence).toBe(NOW + 1);
    expect(issuer.currentSequence()).toBe(NOW + 1);
    // A restarted controller keeps its key and its sequence.
    const restarted = new ManifestIssuer({ dataFolder: data, packages, clock });
    expect(restarted.publicKeyPem).toBe(issuer.publicKeyPem);
    expect((await restarted.buildManifest("lab01", [])).manifest.sequence).toBe(NOW + 2);
    clock.advance(DEFAULT_MANIFEST_EXPIRY_MS);
    expect(
      verifyManifest(next.signed, issuer.publicKeyPem, {
        node: "lab01",
        lastSequence: NOW,
        now: clock.now(),
      }),
    ).toMatchObject({ ok: false, error: { code: "manifest_expired" } });
  });
});
