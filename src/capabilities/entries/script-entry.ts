import { SkillgateError } from "../../core/errors.js";
import { type JsonValue, parseJsonSafely } from "../../core/safe-json.js";
import type { Runner, RunRequest } from "../../runners/contract.js";
import type { RunWorkspace } from "../../runners/workspace/workspace.js";
import type { ExecutionMode, NetworkMode } from "../../skill/governance.js";
import type { ScriptLanguage } from "../../skill/scripts.js";
import type {
  CapabilityPermissions,
  CapabilityProvider,
  InvocationContext,
  SkillDescriptor,
} from "../types.js";

/**
 * The `script` entry (docs/capabilities.md, "Entries"): a capability served by one script of
 * its skill, run through the runner router (the same path as `run_skill_script`: the hash is
 * verified, the snapshot run, the sandbox applied) with the validated payload as its JSON
 * arguments (stdin and `SKILLGATE_SKILL_ARGS`) and no command line of the payload's making.
 * Its stdout must be one JSON value; the pipeline then checks it against the output schema.
 * The run's sandbox policy comes from the provider's effective permissions: network only when
 * they allow it (and then only the skill's allowed domains), the workspace read-only unless
 * `workspace` is among the write roots, and no workspace at all when neither lists it.
 */

/** What a script entry runs. */
export interface ScriptEntryOptions {
  readonly descriptor: SkillDescriptor;
  /** Effective permissions: declared ∩ trust ceiling ∩ policy. */
  readonly permissions: CapabilityPermissions;
  readonly generation?: number;
  /** The skill the script belongs to, as the catalog knows it. */
  readonly skill: {
    readonly name: string;
    readonly folder: string;
    /** The full content hash the registration was decided on; a changed skill is refused (`skill_changed`). */
    readonly hash: string;
    readonly execution: ExecutionMode;
    readonly network: NetworkMode;
    readonly allowedDomains: readonly string[];
  };
  /** Relative to the skill folder, such as `scripts/review.py`. */
  readonly script: string;
  readonly language: ScriptLanguage;
  readonly runner: Runner;
  /** Bytes kept of each stream (default 1 MiB: the output is the answer). */
  readonly maxOutputBytes?: number;
}

/** A provider that answers each call by running its script. */
export function scriptEntryProvider(options: ScriptEntryOptions): CapabilityProvider {
  return {
    descriptor: options.descriptor,
    permissions: options.permissions,
    generation: options.generation ?? 1,
    invoke: async (payload, context) => {
      const result = await options.runner.run(runRequest(options, payload, context));
      // What the run changed in the workspace is on the invocation's record (seed 004, "Audit").
      const changes = result.workspaceChanges;
      if (changes !== undefined)
        for (const path of [...changes.created, ...changes.changed, ...changes.deleted])
          context.touched(path, "write");
      const id = JSON.stringify(options.descriptor.id);
      if (result.status === "timed_out")
        throw new SkillgateError("capability_timeout", `HOST: the script of ${id} ran out of time.`, {});
      if (result.status === "interrupted")
        throw new SkillgateError("capability_interrupted", `HOST: the script of ${id} was stopped.`, {});
      if (result.status === "refused")
        throw new SkillgateError(
          "capability_failed",
          `HOST: the script of ${id} did not run (${result.code ?? "refused"}).`,
          {},
        );
      if (result.exitCode !== 0)
        throw new SkillgateError(
          "capability_failed",
          `HOST: the script of ${id} exited ${result.exitCode ?? "by a signal"}.`,
          {},
        );
      if (result.stdoutTruncated)
        throw new SkillgateError(
          "output_invalid",
          `HOST: the script of ${id} wrote more output than is kept.`,
          {},
        );
      try {
        return parseJsonSafely(result.stdout);
      } catch {
        throw new SkillgateError(
          "output_invalid",
          `HOST: the script of ${id} did not write one JSON value on stdout.`,
          {},
        );
      }
    },
  };
}

/** The run: the payload as the script's JSON arguments, the sandbox policy from the effective permissions. */
function runRequest(
  options: ScriptEntryOptions,
  payload: { readonly [key: string]: JsonValue },
  context: InvocationContext,
): RunRequest {
  const workspace = workspaceOf(options.permissions, context.workspace);
  return {
    skill: options.skill.name,
    hash: options.skill.hash,
    folder: options.skill.folder,
    execution: options.skill.execution,
    script: options.script,
    language: options.language,
    arguments: payload,
    limits: {
      // The pipeline's guard ends the call on time; the runner's own cap is the last resort.
      timeoutMs: options.descriptor.limits.timeoutMs + 1_000,
      maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
    },
    signal: context.signal,
    network: options.permissions.network ? options.skill.network : "none",
    allowedDomains: options.permissions.network ? options.skill.allowedDomains : [],
    ...(workspace !== undefined ? { workspace } : {}),
    ...(context.scope !== undefined ? { call: { requestId: context.requestId, scope: context.scope } } : {}),
  };
}

/** The workspace a run gets from the effective permissions: none, read-only or writable. */
function workspaceOf(
  permissions: CapabilityPermissions,
  workspace: string | undefined,
): RunWorkspace | undefined {
  if (workspace === undefined) return undefined;
  if (permissions.fsWrite.includes("workspace")) return { path: workspace, access: "write" };
  if (permissions.fsRead.includes("workspace")) return { path: workspace, access: "read" };
  return undefined;
}
