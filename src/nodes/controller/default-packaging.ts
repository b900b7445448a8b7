import { ManifestIssuer } from "../manifest/manifest-issuer.js";
import { PackageStore } from "../packages/package-store.js";
import type { NodePackaging } from "./node-controller.js";

/**
 * The packaging `skillgate serve` uses unless given one: the package store and the
 * controller's key in `<data>/nodes` (src/nodes/packages/, src/nodes/manifest/).
 */
export async function defaultNodePackaging(dataFolder: string): Promise<NodePackaging> {
  const packages = new PackageStore({ dataFolder });
  const issuer = new ManifestIssuer({ dataFolder, packages });
  return {
    publicKeyPem: async () => issuer.publicKeyPem,
    buildManifest: async (node, skills) => (await issuer.buildManifest(node, skills)).signed,
    readPackage: async (name, hash) => {
      try {
        return packages.open(name, hash, hash).bytes;
      } catch {
        return undefined;
      }
    },
    currentSequence: () => issuer.currentSequence(),
  };
}
