import { randomUUID } from "node:crypto";
import { lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { removeTree } from "../core/remove-tree.js";
import { parseRelativePath } from "../core/safe-paths.js";
import type { Runner, RunRequest, RunResult, VerifiedSnapshot } from "./contract.js";
import { checkLanguage, type LanguageOptions, scriptCommand } from "./languages.js";
import { runInProcessGroup } from "./process-group.js";
import { refusal } from "./refusal.js";
import { runsFolders } from "./runs-folder.js";
import { checkRunArgv, withScriptArgv } from "./script-argv.js";
import { SnapshotStore } from "./snapshot.js";
import { uncheckedWorkspace } from "./workspace/prepare.js";

/**
 * The most bytes of arguments JSON a script is given. Linux refuses a single environment
 * string over 128 KiB (MAX_ARG_STRLEN), and the arguments travel in SKILLGATE_SKILL_ARGS.
 */
export const MAX_ARGUMENTS_JSON_BYTES = 120 * 1024;

/** The PATH a script gets when this process has none. */
const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Options of {@link LocalRunner}. */
export interface LocalRunnerOptions {
  /** The data folder: work folders are made in `<data>/runs/work/<id>`. */
  readonly dataFolder: string;
  /** Whether the owner trusts a skill to run unconfined (`runners.local.trusted` in config.yaml). */
  readonly isTrusted: (skill: string) => boolean;
  /** Shared with the router; default a store in the same data folder. */
  readonly snapshots?: SnapshotStore;
  /** Between SIGTERM and SIGKILL when the timeout or an abort stops a run. */
  readonly killGraceMs?: number;
  /** Where interpreters and `dotnet` are looked for; its search path is also the script's PATH. */
  readonly languages?: LanguageOptions;
  /** Where PATH, LANG and TZ are taken from (default this process's environment). */
  readonly environment?: NodeJS.ProcessEnv;
}

/**
 * Runs a trusted skill's script on the host, as the host user. It is not a sandbox: the
 * script can read and write what the host user can. What it does guarantee: the script
 * runs from the verified snapshot, never the live folder; in a process group of its own;
 * with a cleared environment (PATH, LANG, TZ, HOME set to a fresh work folder,
 * SKILLGATE_SKILL_ARGS, SKILLGATE_SKILL_NAME, SKILLGATE_SKILL_DIR); the request's argv follows the script's path on
 * the interpreter's command line; stdin holds only the arguments JSON; output is capped; the timeout and an abort kill the whole group; the
 * work folder is removed afterwards; and nothing of the group is left running.
 */
export class LocalRunner implements Runner {
  readonly #options: LocalRunnerOptions;
  readonly #snapshots: SnapshotStore;
  readonly #workFolder: string;

  constructor(options: LocalRunnerOptions) {
    this.#options = options;
    this.#snapshots = options.snapshots ?? new SnapshotStore({ dataFolder: options.dataFolder });
    this.#workFolder = runsFolders(options.dataFolder).work;
  }

  /** Refuses an untrusted skill and a language this host cannot run, before any snapshot. */
  admit(request: RunRequest): RunResult | undefined {
    if (!this.#options.isTrusted(request.skill))
      return refusal(
        "not_trusted",
        `${request.skill} asks to run on the host itself (skillgate.execution: local), but the host's owner has not trusted it, so ${request.script} did not run. ` +
          `The owner trusts a skill by adding its name (or a glob) to runners.local.trusted in skillgate's config.yaml.`,
      );
    return checkLanguage(request.language, request.script, this.#options.languages);
  }

  async run(request: RunRequest): Promise<RunResult> {
    const refused = this.admit(request);
    if (refused !== undefined) return refused;
    if (request.workspace !== undefined && request.checkedWorkspace === undefined)
      return uncheckedWorkspace(request);
    const argumentsJson = JSON.stringify(request.arguments);
    if (Buffer.byteLength(argumentsJson, "utf8") > MAX_ARGUMENTS_JSON_BYTES)
      return refusal(
        "arguments_too_large",
        `the arguments are over ${MAX_ARGUMENTS_JSON_BYTES / 1024} KiB as JSON, more than a script can be given; send smaller arguments.`,
      );
    const badArgv = checkRunArgv(request.argv, request.script);
    if (badArgv !== undefined) return badArgv;
    const snapshot = this.#verified(request);
    if (!snapshot.ok) return snapshot.refusal;
    try {
      return await this.#runFrom(request, snapshot.snapshot, argumentsJson);
    } finally {
      if (snapshot.owned) this.#snapshots.release(snapshot.snapshot);
    }
  }

  /** The router's snapshot when it made one for this hash; else one made here. */
  #verified(
    request: RunRequest,
  ):
    | { ok: true; snapshot: VerifiedSnapshot; owned: boolean }
    | { ok: false; refusal: RunResult; owned?: undefined } {
    const given = request.snapshot;
    if (given !== undefined && given.hash === request.hash && given.folder === request.folder)
      return { ok: true, snapshot: given, owned: false };
    const prepared = this.#snapshots.prepare(request);
    return prepared.ok ? { ok: true, snapshot: prepared.snapshot, owned: true } : prepared;
  }

  async #runFrom(request: RunRequest, snapshot: VerifiedSnapshot, argumentsJson: string): Promise<RunResult> {
    const checked = parseRelativePath(request.script);
    const file = checked.ok ? join(snapshot.folder, checked.value.path) : undefined;
    if (file === undefined || !isFile(file))
      return refusal(
        "invalid_script",
        `${request.skill} has no script ${JSON.stringify(request.script)}; nothing ran.`,
      );
    const work = join(this.#workFolder, randomUUID());
    mkdirSync(work, { recursive: true, mode: 0o700 });
    try {
      const command = await scriptCommand(request.language, file, work, this.#options.languages);
      if (!command.ok) return command.refusal;
      const commandLine = withScriptArgv(request.language, command.command, request.argv);
      const host = this.#options.environment ?? process.env;
      return await runInProcessGroup({
        command: commandLine.command,
        args: commandLine.args,
        // In the workspace when there is one, as the user's shell would run it; HOME stays private.
        cwd: request.checkedWorkspace?.path ?? work,
        env: {
          // The PATH the interpreter was found on, so the script's own `python3` is the same one.
          PATH: this.#options.languages?.searchPath ?? host.PATH ?? FALLBACK_PATH,
          LANG: host.LANG ?? "C.UTF-8",
          ...(host.TZ !== undefined ? { TZ: host.TZ } : {}),
          HOME: work,
          SKILLGATE_SKILL_ARGS: argumentsJson,
          SKILLGATE_SKILL_NAME: request.skill,
          SKILLGATE_SKILL_DIR: snapshot.folder,
          // The skill's package environment, on the interpreters' own search paths (docs/running-scripts.md, "Packages").
          ...(request.environment?.python !== undefined ? { PYTHONPATH: request.environment.python } : {}),
          ...(request.environment?.nodeModules !== undefined
            ? { NODE_PATH: request.environment.nodeModules }
            : {}),
        },
        input: argumentsJson,
        limits: request.limits,
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        ...(request.onOutput !== undefined ? { onOutput: request.onOutput } : {}),
        ...(this.#options.killGraceMs !== undefined ? { killGraceMs: this.#options.killGraceMs } : {}),
      });
    } finally {
      removeTree(work);
    }
  }
}

function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
}
