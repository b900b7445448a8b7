import { basename } from "node:path";
import { parseSettingsHooks } from "./claude-hooks.js";
import { DEFAULT_HOOK_OUTPUT_BYTES, DEFAULT_HOOK_TIMEOUT_MS } from "./hook-command.js";
import type { HookRunSettings, ParsedHooks } from "./hook-entry.js";
import { readHooksFile } from "./hooks-file.js";
import { parseNativeHooks } from "./native-hooks.js";
import type { Registry } from "./registry.js";

/** Skip reasons listed in a note; more are counted, not listed. */
const REASONS_IN_NOTE = 5;

/** How {@link loadShellHooks} reads a file and runs its commands. */
export interface ShellHookOptions {
  /** Where the file was found: `config` (the owner's folder), `project` (opted in) or `path` (given). */
  readonly scope: "config" | "project" | "path";
  /** A command's time limit when its entry gives none; default 10 s. */
  readonly timeoutMs?: number;
  /** Bytes a command may print on stdout and on stderr each; one more kills it. Default 64 KiB. */
  readonly maxOutputBytes?: number;
  /** The commands' working folder; default the process's. */
  readonly cwd?: string;
  /** Told when the whole file is refused (its note then says `not loaded (reason)`). */
  readonly onUnusable?: (reason: string) => void;
}

/**
 * Registers the shell hooks a hooks file lists, marked as the file's (so
 * `registry.dropLoaded()` removes them), and returns the file's note:
 *
 * - `undefined` when there is no file at that path;
 * - `hooks.json: N hook(s)`, followed by `, M skipped (reason; reason…)` when entries were
 *   not usable (an unknown event, no command, an invalid matcher…): the rest still load;
 * - `hooks.json: not loaded (reason)` for a file that cannot be used at all (invalid JSON,
 *   neither a list nor an object, over 1 MiB, not a regular file): nothing is registered.
 *
 * The file is either the native shape, a list of `{event, match?, command, timeout?}`, or
 * the hook settings shape other agent setups use (`{"hooks": {"PreToolUse": [...]}}`, or
 * the inner object alone). See docs/hooks.md for what commands receive and may answer.
 * Never throws for anything in the file.
 */
export async function loadShellHooks(
  registry: Registry,
  file: string,
  options: ShellHookOptions,
): Promise<string | undefined> {
  const name = basename(file);
  const content = await readHooksFile(file);
  if (content.kind === "missing") return undefined;
  if (content.kind === "unusable") {
    options.onUnusable?.(content.reason);
    return `${name}: not loaded (${content.reason})`;
  }
  const settings: HookRunSettings = {
    timeoutMs: options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_HOOK_OUTPUT_BYTES,
    cwd: options.cwd ?? process.cwd(),
  };
  const parsed =
    content.kind === "native"
      ? parseNativeHooks(content.entries, settings)
      : parseSettingsHooks(content.events, settings);
  await registry.loadingFrom(file, (registrar) => {
    for (const entry of parsed.hooks) {
      registrar.on(entry.event, entry.hook, {
        scope: options.scope,
        command: entry.command,
        ...(entry.match !== undefined ? { match: entry.match } : {}),
      });
    }
  });
  return `${name}: ${summary(parsed)}`;
}

function summary(parsed: ParsedHooks): string {
  const loaded = `${parsed.hooks.length} hook(s)`;
  const skipped = parsed.skipped;
  if (skipped.length === 0) return loaded;
  const listed = skipped.slice(0, REASONS_IN_NOTE).join("; ");
  const more = skipped.length > REASONS_IN_NOTE ? `; and ${skipped.length - REASONS_IN_NOTE} more` : "";
  return `${loaded}, ${skipped.length} skipped (${listed}${more})`;
}
