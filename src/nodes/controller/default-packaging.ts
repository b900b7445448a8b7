import type { NodePackaging } from "./node-controller.js";
import { NodeError } from "./node-errors.js";

/**
 * The packaging `skillgate serve` uses unless given one: the package store and the
 * controller's key in `<data>/nodes` (src/nodes/packages/, src/nodes/manifest/).
 */
export async function defaultNodePackaging(_dataFolder: string): Promise<NodePackaging> {
  const notReady = (): never => {
    throw new NodeError("controller_not_ready", "node packages are not available on this controller yet");
  };
  return {
    publicKeyPem: async () => notReady(),
    buildManifest: async () => notReady(),
    readPackage: async () => notReady(),
    currentSequence: () => 0,
  };
}
