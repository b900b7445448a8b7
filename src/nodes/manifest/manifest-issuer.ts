import { type Clock, systemClock } from "../../core/clock.js";
import { isSkillgateError } from "../../core/errors.js";
import type { PackageSource } from "../packages/package-builder.js";
import type { PackageStore } from "../packages/package-store.js";
import type { ManifestSkill, SignedSkillsManifest, SkillsManifest } from "../protocol.js";
import { type ControllerKey, loadControllerKey } from "./controller-key.js";
import { MAX_MANIFEST_SKILLS, signManifest } from "./manifest-codec.js";
import { ManifestSequence } from "./manifest-sequence.js";

/** How long a manifest is good for by default: ten minutes. */
export const DEFAULT_MANIFEST_EXPIRY_MS = 10 * 60 * 1000;

/** Options of {@link ManifestIssuer}. */
export interface ManifestIssuerOptions {
  /** The controller's data folder (`<data>/nodes/` holds the key and the sequence). */
  readonly dataFolder: string;
  /** Where packages are built and kept. */
  readonly packages: PackageStore;
  /** Milliseconds a manifest stays good after it is issued (default {@link DEFAULT_MANIFEST_EXPIRY_MS}). */
  readonly expiryMs?: number;
  readonly clock?: Clock;
}

/** A skill left out of a manifest because its package could not be built, and why. */
export interface SkippedSkill {
  readonly name: string;
  readonly hash: string;
  readonly code: string;
  readonly message: string;
}

/** An issued manifest: what is sent, what it says, and the skills left out. */
export interface IssuedManifest {
  readonly signed: SignedSkillsManifest;
  readonly manifest: SkillsManifest;
  readonly skipped: readonly SkippedSkill[];
}

/**
 * Issues signed skills manifests (docs/nodes.md, "The skills manifest"). The controller
 * decides which skills go to which node; this makes sure each one's package exists, and
 * signs the list with the controller's key under a new sequence and an expiry.
 */
export class ManifestIssuer {
  readonly #key: ControllerKey;
  readonly #sequence: ManifestSequence;
  readonly #packages: PackageStore;
  readonly #expiryMs: number;
  readonly #clock: Clock;

  constructor(options: ManifestIssuerOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#key = loadControllerKey(options.dataFolder);
    this.#sequence = new ManifestSequence(options.dataFolder, this.#clock);
    this.#packages = options.packages;
    this.#expiryMs = options.expiryMs ?? DEFAULT_MANIFEST_EXPIRY_MS;
  }

  /** The controller's public key (SPKI PEM), as enrolment hands it to an agent. */
  get publicKeyPem(): string {
    return this.#key.publicKeyPem;
  }

  /** The last sequence issued (0 before the first). */
  currentSequence(): number {
    return this.#sequence.current();
  }

  /**
   * The signed manifest for `node` listing `skills` (each ensured in the package store
   * first, in the order given, sorted by name in the manifest). A skill whose package
   * cannot be built (it changed since its hash was read, it holds a link, it is over a
   * limit) is left out and named in `skipped`; the rest are still sent. At most
   * {@link MAX_MANIFEST_SKILLS} skills; the rest are skipped with `manifest_invalid`.
   */
  async buildManifest(node: string, skills: readonly PackageSource[]): Promise<IssuedManifest> {
    const listed: ManifestSkill[] = [];
    const skipped: SkippedSkill[] = [];
    for (const skill of skills) {
      if (listed.length >= MAX_MANIFEST_SKILLS) {
        skipped.push({
          name: skill.name,
          hash: skill.hash,
          code: "manifest_invalid",
          message: `a manifest lists at most ${MAX_MANIFEST_SKILLS} skills`,
        });
        continue;
      }
      try {
        const stored = await this.#packages.ensure(skill);
        listed.push({ name: stored.name, hash: stored.hash, sha256: stored.sha256, size: stored.size });
      } catch (error) {
        if (!isSkillgateError(error)) throw error;
        skipped.push({ name: skill.name, hash: skill.hash, code: error.code, message: error.message });
      }
    }
    listed.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    return this.sign(node, listed, skipped);
  }

  /** Signs a manifest of packages already built (their SHA-256 and size known). */
  sign(
    node: string,
    skills: readonly ManifestSkill[],
    skipped: readonly SkippedSkill[] = [],
  ): IssuedManifest {
    const now = this.#clock.now();
    const manifest: SkillsManifest = {
      node,
      sequence: this.#sequence.next(),
      issuedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#expiryMs).toISOString(),
      skills: [...skills],
    };
    return { signed: signManifest(manifest, this.#key.privateKey), manifest, skipped };
  }
}
