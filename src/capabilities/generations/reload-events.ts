import type { CapabilityProvider, RuntimeMode } from "../types.js";

/**
 * The vocabulary of hot reload: the seed's steps in order, the events the reloader publishes
 * (each step, `/capability/reloaded`, `/skill/reloaded`, `/skill/reload_failed`, a switch
 * waiting for the owner), and the index switch it is given.
 */

/** The steps, in order. */
export const RELOAD_STEPS = [
  "debounce",
  "parse_manifest",
  "validate",
  "load_state",
  "bind_api",
  "health_check",
  "install_shadow",
  "switch_index",
  "drain_old",
  "publish",
] as const;

/** One step of the sequence. */
export type ReloadStep = (typeof RELOAD_STEPS)[number];

/** What the reloader publishes (on the audit log and the event stream, by whoever listens). */
export type GenerationEvent =
  | {
      readonly topic: "/skill/reload/step";
      readonly skill: string;
      readonly generation: number;
      readonly step: ReloadStep;
      readonly at: number;
      readonly waitedMs?: number;
    }
  | {
      readonly topic: "/capability/reloaded" | "/skill/reloaded";
      readonly skill: string;
      readonly generation: number;
      readonly previous?: number;
      readonly capabilities: readonly string[];
    }
  | {
      readonly topic: "/skill/reload_failed";
      readonly skill: string;
      readonly generation: number;
      readonly step: ReloadStep;
      readonly code: string;
      readonly detail: string;
    }
  | {
      readonly topic: "/skill/generation/waiting";
      readonly skill: string;
      readonly generation: number;
      readonly widening: readonly string[];
    };

/** What a switch installs: the provider, and the capabilities and runtimes it is registered to. */
export interface IndexEntry {
  readonly provider: CapabilityProvider;
  readonly capabilities: readonly string[];
  readonly runtimes: readonly RuntimeMode[];
}

/** Switches the capability index: `next` replaces `previous` (by provider id) in one assignment. */
export type CapabilityIndexSwitch = (next: IndexEntry, previous: CapabilityProvider | undefined) => void;
