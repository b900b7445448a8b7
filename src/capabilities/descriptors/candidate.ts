import type { JsonSchemaObject } from "../manifests/schema-ref.js";
import type { CapabilityProblem } from "../problems.js";
import type { DescriptorScope, SkillDescriptor, SkillKind } from "../types.js";

/**
 * One thing discovery found, before any decision: a SKILL.md, an adapter manifest or a Lua
 * capability manifest. It carries the normalised {@link SkillDescriptor} when the file could
 * be read that far, and every problem found on the way; `decideRegistration` (decide.ts)
 * turns each into exactly one decision. A manifest that could not be read at all still is a
 * candidate (named after its file), so it is listed and explained, never silently dropped.
 */
export interface DescriptorCandidate {
  /** The provider id: the manifest's `id`, `skill:<name>`, or `manifest:<file name>` for an unreadable one. */
  readonly id: string;
  readonly kind: SkillKind | undefined;
  /** Where it was found (see {@link SkillDescriptor.source}). */
  readonly source: string;
  readonly scope: DescriptorScope;
  /** The file a person opens: the manifest, or the SKILL.md. */
  readonly location: string;
  readonly descriptor: SkillDescriptor | undefined;
  /** The schemas themselves (file schemas read), for the pipeline to compile; absent without a descriptor. */
  readonly schemas?: { readonly input: JsonSchemaObject; readonly output: JsonSchemaObject };
  /** Errors decide (the first one); warnings are shown. */
  readonly problems: readonly CapabilityProblem[];
  /** The manifest's `enabled` (true for a SKILL.md). */
  readonly enabled: boolean;
  /** For an adapter manifest: the catalog skill it offers, by name, and that skill's catalog decision. */
  readonly skill?: { readonly name: string; readonly catalogDecision: string };
}
