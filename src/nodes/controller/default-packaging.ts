import { readFile } from "node:fs/promises";
import { ManifestIssuer } from "../manifest/manifest-issuer.js";
import { PackageStore } from "../packages/package-store.js";
import type { NodePackaging } from "./node-controller.js";

/** Options of {@link defaultNodePackaging}. */
export interface DefaultPackagingOptions {
  /** How long a signed manifest stays good (config.yaml `nodes.manifest_ttl_seconds`, read at start). */
  readonly expiryMs: number;
}

/**
 * The packaging `skillgate serve` uses unless given one: the package store in
 * `<data>/nodes/packages` and the manifest issuer with the controller's key and sequence in
 * `<data>/nodes` (src/nodes/packages/, src/nodes/manifest/). The key is made on first use,
 * so a server that never has a node writes none.
 */
export function defaultNodePackaging(dataFolder: string, options: DefaultPackagingOptions): NodePackaging {
  const packages = new PackageStore({ dataFolder });
  let issuer: ManifestIssuer | undefined;
  const issuerOf = (): ManifestIssuer => {
    issuer ??= new ManifestIssuer({ dataFolder, packages, expiryMs: options.expiryMs });
    return issuer;
  };
  return {
    publicKeyPem: async () => issuerOf().publicKeyPem,
    buildManifest: async (node, skills) => (await issuerOf().buildManifest(node, skills)).signed,
    readPackage: async (name, hash) => {
      const stored = packages.get(name, hash);
      if (stored === undefined) return undefined;
      try {
        return await readFile(stored.path);
      } catch {
        return undefined;
      }
    },
    currentSequence: () => issuer?.currentSequence() ?? 0,
    prune: async (keep) => {
      await packages.prune(keep);
    },
  };
}
