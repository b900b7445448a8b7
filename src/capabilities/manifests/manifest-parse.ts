import type { CapabilityProblem } from "../problems.js";

/**
 * What parsing one manifest gives: its id when it could be read (so even a rejected
 * manifest's decision has a name), the manifest when nothing was an error, and every
 * problem found (warnings for unknown fields alongside a manifest).
 */
export interface ManifestParse<Manifest> {
  readonly id: string | undefined;
  readonly manifest?: Manifest;
  readonly problems: readonly CapabilityProblem[];
}
