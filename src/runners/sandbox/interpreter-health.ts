import type { InterpreterMount } from "../interpreters/prefix-mounts.js";
import { type LanguageOptions, languageInterpreter } from "../languages.js";
import { SANDBOX_GID, SANDBOX_UID } from "./layout.js";
import { type HostIdentity, reach } from "./reachability.js";
import { interpreterMountViaPortal } from "./request-checks.js";

/** One interpreter mount as `skillgate doctor` shows it: whether the sandbox user can bind it. */
export interface InterpreterMountHealth extends InterpreterMount {
  readonly reachable: boolean;
  /** Bound through the root-only portal: skillgate runs as root and the folder is behind a closed one. */
  readonly throughPortal?: true;
}

/** What `skillgate doctor` shows about the interpreter of some languages (docs/running-scripts.md, "Interpreters"). */
export interface InterpreterHealth {
  /** The languages it runs: `python`, `node` and `typescript`, `bash`. */
  readonly languages: readonly string[];
  readonly program: "python3" | "node" | "bash";
  /** Whether scripts of these languages can run with it in the sandbox. */
  readonly ok: boolean;
  /** What PATH or `runners.interpreters` named (maybe a shim), and which of the two. */
  readonly found?: string;
  readonly source?: "path" | "config";
  /** The program that runs, after the shim was resolved. */
  readonly executable?: string;
  readonly viaShim?: boolean;
  readonly version?: string;
  readonly prefix?: string;
  readonly basePrefix?: string;
  /** The folders bound read-only into the sandbox for it; none for an interpreter under `/usr`. */
  readonly mounts: readonly InterpreterMountHealth[];
  /** Why it cannot run sandboxed scripts (none found, or the sandbox cannot show it). */
  readonly problem?: string;
}

const LANGUAGES = [
  { language: "python", program: "python3", languages: ["python"] },
  { language: "node", program: "node", languages: ["node", "typescript"] },
  { language: "bash", program: "bash", languages: ["bash"] },
] as const;

/**
 * The interpreter each language uses, found exactly as the runners find it, with what the
 * sandbox binds for it and whether the sandbox user can reach each folder (as root it is
 * uid 65534; as another user, that user). Data only; the doctor prints it.
 */
export function interpreterHealth(options: LanguageOptions = {}): InterpreterHealth[] {
  const identity: HostIdentity =
    process.getuid?.() === 0
      ? { uid: SANDBOX_UID, gid: SANDBOX_GID }
      : { uid: process.getuid?.() ?? SANDBOX_UID, gid: process.getgid?.() ?? SANDBOX_GID };
  return LANGUAGES.map(({ language, program, languages }): InterpreterHealth => {
    const resolved = languageInterpreter(language, options);
    if (!resolved.ok) return { languages, program, ok: false, mounts: [], problem: resolved.problem };
    const interpreter = resolved.interpreter;
    const answers = interpreter.mounts.map((mount) => reach(mount.source, identity, "list"));
    // As root a folder behind a closed one goes through the portal, as the run does it.
    const portal = interpreter.mounts.map((mount) => interpreterMountViaPortal(mount, identity));
    const mounts = interpreter.mounts.map((mount, index) => ({
      ...mount,
      reachable: answers[index] === "ok" || portal[index] === true,
      ...(portal[index] === true ? { throughPortal: true as const } : {}),
    }));
    const closedAt = answers.findIndex((answer, index) => answer !== "ok" && portal[index] !== true);
    const closed = interpreter.mounts[closedAt];
    const why =
      answers[closedAt] === "folder_closed"
        ? `is inside a folder the sandbox user (uid ${identity.uid}) cannot enter`
        : `is not readable by the sandbox user (uid ${identity.uid})`;
    const problem =
      interpreter.mountProblem ??
      (closed !== undefined
        ? `${closed.source} ${why}, so sandboxed ${languages.join(" and ")} scripts are refused (interpreter_unreachable)`
        : undefined);
    return {
      languages,
      program,
      ok: problem === undefined,
      found: interpreter.found,
      source: interpreter.source,
      executable: interpreter.executable,
      viaShim: interpreter.viaShim,
      ...(interpreter.version !== undefined ? { version: interpreter.version } : {}),
      prefix: interpreter.prefix,
      ...(interpreter.basePrefix !== undefined ? { basePrefix: interpreter.basePrefix } : {}),
      mounts,
      ...(problem !== undefined ? { problem } : {}),
    };
  });
}
