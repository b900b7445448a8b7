import { type Clock, systemClock } from "../../core/clock.js";
import { isSkillgateError } from "../../core/errors.js";
import { sha256Hex } from "../../core/hashing.js";
import { verifyManifest } from "../manifest/verify-manifest.js";
import { PackageError } from "../packages/package-errors.js";
import { packageKey } from "../packages/package-format.js";
import type { ManifestSkill, SkillsManifest } from "../protocol.js";
import type { SkillCache } from "./skill-cache.js";

/**
 * Where SkillSync gets its manifest and packages: the controller over HTTP
 * ({@link ControllerClient}), or anything else that hands over the same bytes (a queue's
 * remote worker, a test). Nothing it returns is trusted: the manifest is verified and each
 * package checked against it.
 */
export interface ManifestTransport {
  /** The signed manifest for this node, as parsed JSON (a {@link SignedSkillsManifest} if all is well). */
  manifest(): Promise<unknown>;
  /** The package bytes of `name@hash`; `expectedSize` (the manifest's size) bounds what is read. */
  package(name: string, hash: string, expectedSize?: number): Promise<Uint8Array>;
}

/** Options of {@link SkillSync}. */
export interface SkillSyncOptions {
  /** This agent's node name. */
  readonly node: string;
  /** The controller's pinned public key (SPKI PEM). */
  readonly controllerPublicKey: string;
  readonly transport: ManifestTransport;
  readonly cache: SkillCache;
  readonly clock?: Clock;
  /** Downloads at once (default 4). */
  readonly concurrency?: number;
}

/** One package that did not install, and why. */
export interface FailedPackage {
  readonly name: string;
  readonly hash: string;
  readonly code: string;
  readonly message: string;
}

/** What one sync did. */
export interface SyncReport {
  /** True when the held set is now exactly the manifest's. */
  readonly ok: boolean;
  /** `name@hash` keys that became held. */
  readonly installed: readonly string[];
  /** `name@hash` keys no longer held (pruned, or replaced by a new hash of the same name). */
  readonly removed: readonly string[];
  /** Packages that did not install; when any is listed the previous held set was kept as it was. */
  readonly failed: readonly FailedPackage[];
  /** The sequence of the manifest used, or undefined when none was accepted. */
  readonly sequence: number | undefined;
  /** Why no manifest was accepted (refused or not fetched): its code and message. */
  readonly manifestError?: { readonly code: string; readonly message: string };
  /** Bytes of packages downloaded. */
  readonly downloadedBytes: number;
}

/**
 * SkillSync (docs/nodes.md, "SkillSync"): fetch the signed manifest, verify it (signature
 * with the pinned key, node, a sequence above the last accepted, expiry), download each
 * `name@hash` the cache does not have, check its size and SHA-256 against the manifest
 * before unpacking, unpack and install it (the cache checks its files' hash and renames it
 * in). When every package is in, the held set becomes the manifest's in one atomic write and
 * what it no longer lists is pruned. When any failed, the held set stays exactly as it was
 * (what did install stays cached for the next sync) and the report names each failure.
 * One sync runs at a time; a call during one gets that one's report.
 */
export class SkillSync {
  readonly #options: SkillSyncOptions;
  readonly #clock: Clock;
  #running: Promise<SyncReport> | undefined;

  constructor(options: SkillSyncOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Runs a sync, or joins the one running. Never throws for a refused manifest or package. */
  sync(): Promise<SyncReport> {
    this.#running ??= this.#sync().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #sync(): Promise<SyncReport> {
    const { cache, transport } = this.#options;
    let signed: unknown;
    try {
      signed = await transport.manifest();
    } catch (error) {
      return refusedReport(error);
    }
    const verdict = verifyManifest(signed, this.#options.controllerPublicKey, {
      node: this.#options.node,
      lastSequence: cache.lastSequence(),
      now: this.#clock.now(),
    });
    if (!verdict.ok) return refusedReport(verdict.error);
    const manifest = verdict.manifest;
    const missing = manifest.skills.filter((skill) => !cache.has(skill.name, skill.hash));
    const failed: FailedPackage[] = [];
    let downloadedBytes = 0;
    await eachLimited(missing, this.#options.concurrency ?? 4, async (skill) => {
      try {
        const size = await this.#fetchAndInstall(skill);
        downloadedBytes += size;
      } catch (error) {
        // A refusal keeps its code; anything else (a full disk, a folder the agent cannot
        // write) fails this package alone, as `io_error`, and the held set stays as it was.
        const code = isSkillgateError(error) ? error.code : "io_error";
        const message = error instanceof Error ? error.message : String(error);
        failed.push({ name: skill.name, hash: skill.hash, code, message });
      }
    });
    if (failed.length > 0) {
      cache.recordSequence(manifest.sequence);
      failed.sort((left, right) => (left.name < right.name ? -1 : 1));
      return { ok: false, installed: [], removed: [], failed, sequence: manifest.sequence, downloadedBytes };
    }
    return this.#commit(manifest, downloadedBytes);
  }

  /** Downloads one package, checks it against the manifest, installs it; returns its size. */
  async #fetchAndInstall(skill: ManifestSkill): Promise<number> {
    const bytes = await this.#options.transport.package(skill.name, skill.hash, skill.size);
    if (bytes.length !== skill.size)
      throw new PackageError(
        "package_size_mismatch",
        `the package of ${skill.name}@${skill.hash.slice(0, 8)} has ${bytes.length} bytes; the manifest says ${skill.size}`,
        { name: skill.name, hash: skill.hash, expected: skill.size, actual: bytes.length },
      );
    const digest = sha256Hex(bytes);
    if (digest !== skill.sha256)
      throw new PackageError(
        "package_sha256_mismatch",
        `the package of ${skill.name}@${skill.hash.slice(0, 8)} does not have the SHA-256 the manifest says`,
        { name: skill.name, hash: skill.hash, expected: skill.sha256, actual: digest },
      );
    this.#options.cache.install(skill.name, skill.hash, bytes);
    return bytes.length;
  }

  #commit(manifest: SkillsManifest, downloadedBytes: number): SyncReport {
    const { cache } = this.#options;
    const before = cache.held();
    const after = new Map(manifest.skills.map((skill) => [skill.name, skill.hash] as const));
    cache.commit(after, manifest.sequence);
    const installed = [...after].filter(([name, hash]) => before.get(name) !== hash);
    const removed = [...before].filter(([name, hash]) => after.get(name) !== hash);
    return {
      ok: true,
      installed: installed.map(([name, hash]) => packageKey(name, hash)).sort(),
      removed: removed.map(([name, hash]) => packageKey(name, hash)).sort(),
      failed: [],
      sequence: manifest.sequence,
      downloadedBytes,
    };
  }
}

function refusedReport(error: unknown): SyncReport {
  const code = isSkillgateError(error) ? error.code : "controller_unreachable";
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    installed: [],
    removed: [],
    failed: [],
    sequence: undefined,
    manifestError: { code, message },
    downloadedBytes: 0,
  };
}

/** Runs `work` over `items`, at most `limit` at once. */
async function eachLimited<Item>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as Item;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
