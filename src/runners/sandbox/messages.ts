import type { RunResult } from "../contract.js";
import { refusal } from "../refusal.js";

/** The refusal codes of the sandbox runner (RunResult.code). */
export type SandboxRefusalCode =
  | "sandbox_unavailable"
  | "language_not_sandboxable"
  | "invalid_script"
  | "invalid_command"
  | "interpreter_unreachable"
  | "snapshot_unreachable"
  | "proxy_unavailable"
  | "arguments_too_large"
  | "cgroup_unavailable"
  | "sandbox_failed"
  | "workspace_unreachable";

/** The script kinds the sandbox runs, by extension (docs/running-scripts.md, "Languages"). */
export const SANDBOXABLE_EXTENSIONS = [".py", ".js", ".mjs", ".sh"] as const;

/** How the host's owner gets the sandbox's programs, in every message that lacks one. */
export const INSTALL_HINT =
  "The host's owner installs them with scripts/install-test-deps.sh, or apt-get install bubblewrap socat";

/** A refusal with a sandbox code. */
export function sandboxRefusal(code: SandboxRefusalCode, text: string): RunResult {
  return refusal(code, text);
}

/** bubblewrap is not installed (or not runnable). */
export function bubblewrapMissing(script: string): RunResult {
  return sandboxRefusal(
    "sandbox_unavailable",
    `this host cannot run sandboxed scripts because bubblewrap (bwrap) is not installed, so ${script} did not run. ${INSTALL_HINT}.`,
  );
}

/** A program the sandbox needs is missing: `setpriv` or `prlimit` (util-linux), `sh`. */
export function toolMissing(script: string, tool: string): RunResult {
  return sandboxRefusal(
    "sandbox_unavailable",
    `this host cannot run sandboxed scripts because ${tool} is not installed, so ${script} did not run. ${INSTALL_HINT} util-linux.`,
  );
}

/** bubblewrap lacks options skillgate needs. */
export function bubblewrapTooOld(script: string, version: string, missing: readonly string[]): RunResult {
  return sandboxRefusal(
    "sandbox_unavailable",
    `this host's bubblewrap ${version} lacks ${missing.join(", ")}, which the sandbox needs, so ${script} did not run. The host's owner installs a newer bubblewrap (0.8 or later).`,
  );
}

/** A script kind the sandbox does not run. */
export function notSandboxable(script: string): RunResult {
  return sandboxRefusal(
    "language_not_sandboxable",
    `${script} cannot run in the sandbox: it runs only Python (.py), JavaScript (.js, .mjs) and shell (.sh) scripts, so it did not run.`,
  );
}

/** The script path is not a plain relative path to a file of the skill. */
export function invalidScript(script: string): RunResult {
  return sandboxRefusal("invalid_script", `the skill has no script ${JSON.stringify(script)}; nothing ran.`);
}

/** The interpreter is not an absolute path under `/usr`, the only programs the sandbox has. */
export function invalidCommand(script: string, command: string): RunResult {
  return sandboxRefusal(
    "invalid_command",
    `${script} would run with ${JSON.stringify(command)}, which is not a program under /usr that the sandbox can see, so it did not run; tell the host's owner.`,
  );
}

/**
 * The interpreter (found as the user's shell finds it) lives where the sandbox user cannot
 * read, or cannot be shown in the sandbox at all.
 */
export function interpreterUnreachable(script: string, program: string, detail: string): RunResult {
  return sandboxRefusal(
    "interpreter_unreachable",
    `${script} would run with ${program}, but the sandbox cannot show it: ${detail}, so it did not run. ` +
      "The host's owner makes that folder readable by others (o+rx on it, o+x on the folders above), installs the interpreter where others can read it (/usr/local, /opt), or sets runners.interpreters in config.yaml to one that is (e.g. /usr/bin/python3); skillgate doctor shows each interpreter and its mounts.",
  );
}

/** The snapshot (or one file of it) cannot be read by the sandbox user. */
export function snapshotUnreachable(script: string, detail: string): RunResult {
  return sandboxRefusal(
    "snapshot_unreachable",
    `the sandbox user cannot read the skill's snapshot (${detail}), so ${script} did not run; tell the host's owner.`,
  );
}

/** The proxy the skill's allowed domains need is not there. */
export function proxyUnavailable(script: string, detail: string): RunResult {
  return sandboxRefusal(
    "proxy_unavailable",
    `the skill's allowed domains need skillgate's network proxy, which is not available (${detail}), so ${script} did not run; tell the host's owner.`,
  );
}

/** The arguments do not fit in an environment variable. */
export function argumentsTooLarge(limitBytes: number): RunResult {
  return sandboxRefusal(
    "arguments_too_large",
    `the arguments are over ${Math.floor(limitBytes / 1024)} KiB as JSON, more than a script can be given; send smaller arguments.`,
  );
}

/** bubblewrap or the launch chain failed before the script started. */
export function sandboxFailed(script: string, detail: string): RunResult {
  const reason = detail.trim() === "" ? "no reason given" : detail.trim();
  return sandboxRefusal(
    "sandbox_failed",
    `the sandbox could not start (${reason}), so ${script} did not run; tell the host's owner (skillgate doctor shows what this host supports).`,
  );
}

/** The runner was told to require cgroups (`cgroups: "required"`) and the run has none. */
export function cgroupUnavailable(script: string, reason: string): RunResult {
  return sandboxRefusal(
    "cgroup_unavailable",
    `the sandbox must limit this run with cgroups, but it has none (${reason}), so ${script} did not run; tell the host's owner (skillgate doctor shows what this host supports).`,
  );
}

/** The sandbox user cannot open the workspace by name (a closed folder above it, or its own mode). */
export function workspaceUnreachable(script: string, workspace: string): RunResult {
  return sandboxRefusal(
    "workspace_unreachable",
    `the sandbox user cannot open the workspace ${JSON.stringify(workspace)} (it and every folder above it must be readable and searchable by it), so ${script} did not run; tell the host's owner.`,
  );
}
