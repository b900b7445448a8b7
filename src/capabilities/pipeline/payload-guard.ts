import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import { isForbiddenKey, isPlainObject, type JsonValue } from "../../core/safe-json.js";
import { type InvocationErrorCode, refuse, type StepResult } from "./invocation.js";
import {
  COMMAND_TEMPLATE,
  ENV_ASSIGNMENT,
  ENV_REFERENCE,
  FORBIDDEN_KEYS,
  foldKey,
  HOST_PATH_START,
  LONG_ENV_VALUE,
  PARENT_SEGMENT,
  SECRET_NAME,
  SHELL_SNIPPET,
  SKILL_FILE,
  SKILL_URI,
} from "./payload-rules.js";

/**
 * Step 3a, the payload guard (docs/capabilities.md, "What a payload may never carry"). It walks
 * the payload once, without recursion, and refuses at any depth, in keys and in values alike:
 * prototype-polluting keys, skill file paths, environment names and values, command templates,
 * shell snippets, host paths outside the effective policy and runtime-mode overrides, each
 * with its own code; and payloads over the byte, depth or key limits. The refusal names the
 * JSON pointer where it found the thing, never the thing. What passes is a clean copy of plain
 * JSON: the provider never sees the caller's objects.
 */

/** Default limits: 256 KiB of JSON, 32 levels, 4,096 keys in all. */
export const DEFAULT_PAYLOAD_LIMITS = { maxBytes: 256 * 1024, maxDepth: 32, maxKeys: 4096 } as const;

/** What the guard judges a payload against. */
export interface PayloadGuardOptions {
  readonly maxBytes?: number;
  readonly maxDepth?: number;
  readonly maxKeys?: number;
  /** Folders that hold skills (the catalog's roots, the store): a path inside one is a skill path. */
  readonly skillFolders: readonly string[];
  /** Absolute roots the provider may touch (its effective fs read and write roots, `workspace` resolved). */
  readonly allowedRoots: readonly string[];
  /** The environment whose names and values a payload may not carry (default `process.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The clock that ages the environment's table (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * How long the table of an environment's names and values is reused before it is read again.
 * Reading `process.env` whole costs about 0.1 ms (each value is a call into the process), which
 * was a fifth of a no-op invocation; so a variable set or changed while the process runs is
 * guarded from this long after, not at once.
 */
export const ENVIRONMENT_TABLE_TTL_MS = 1000;

/** The names and values of one environment a payload may not carry, and when they were read. */
interface EnvironmentTable {
  readonly names: ReadonlySet<string>;
  readonly values: readonly string[];
  readonly readAt: number;
}

const environmentTables = new WeakMap<object, EnvironmentTable>();

/** The payload, checked and copied, and its size in bytes of JSON. */
export interface GuardedPayload {
  readonly payload: { readonly [key: string]: JsonValue };
  readonly bytes: number;
}

/** Checks `payload`; the clean copy, or the refusal with its code and pointer. */
export function guardPayload(payload: unknown, options: PayloadGuardOptions): StepResult<GuardedPayload> {
  if (!isPlainObject(payload))
    return refuse(
      "payload_not_object",
      'HOST: payload must be a JSON object, such as {"scope": "current_diff"}.',
    );
  const limits = { ...DEFAULT_PAYLOAD_LIMITS, ...definedLimits(options) };
  const judge = stringJudge(options);
  const root: { [key: string]: JsonValue } = {};
  const stack: Array<{
    value: unknown;
    into: JsonValue[] | { [key: string]: JsonValue };
    pointer: string;
    depth: number;
  }> = [{ value: payload, into: root, pointer: "", depth: 1 }];
  let keys = 0;
  // A running lower bound of the JSON's size, so a huge string is refused before any pattern reads it.
  let size = 0;
  const tooLarge = () =>
    refuse<GuardedPayload>(
      "payload_too_large",
      `HOST: payload is over ${limits.maxBytes} bytes of JSON; send less.`,
    );
  while (stack.length > 0) {
    const { value, into, pointer, depth } = stack.pop() as (typeof stack)[number];
    if (depth > limits.maxDepth)
      return refuse(
        "payload_too_deep",
        `HOST: payload nests deeper than ${limits.maxDepth} levels.`,
        pointer,
      );
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [String(index), item])
      : Object.keys(value as object).map((key) => [key, (value as Record<string, unknown>)[key]]);
    for (const [key, inner] of entries) {
      const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (!Array.isArray(value)) {
        keys += 1;
        size += key.length + 4;
        if (size > limits.maxBytes) return tooLarge();
        if (keys > limits.maxKeys)
          return refuse("payload_too_many_keys", `HOST: payload has more than ${limits.maxKeys} keys.`, at);
        // A key's refusal points at its object: the pointer of the key would repeat what it carries.
        const keyProblem = judgeKey(key) ?? judge(key);
        if (keyProblem !== undefined) return refusal(keyProblem, pointer === "" ? "/" : pointer, "key");
      }
      const copied = copyValue(inner);
      if (copied === undefined)
        return refuse("payload_not_object", "HOST: payload holds a value that is not JSON.", at);
      if (typeof copied === "string") {
        size += copied.length + 3;
        if (size > limits.maxBytes) return tooLarge();
        const problem = judge(copied);
        if (problem !== undefined) return refusal(problem, at, "value");
      }
      if (typeof copied === "object" && copied !== null)
        stack.push({ value: inner, into: copied, pointer: at, depth: depth + 1 });
      if (Array.isArray(into)) into.push(copied);
      else into[key] = copied;
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(root), "utf8");
  if (bytes > limits.maxBytes) return tooLarge();
  return { ok: true, value: { payload: root, bytes } };
}

/** The sentence of each code, naming where, never what. */
const WHAT: Readonly<Record<string, string>> = {
  payload_prototype_key: "a key that could pollute prototypes",
  payload_skill_path: "a skill file path",
  payload_command_template: "a command template",
  payload_env: "an environment variable name or value",
  payload_shell: "a shell snippet",
  payload_host_path: "a host path outside what this capability may touch",
  payload_mode_override: "a runtime-mode or policy override",
};

function refusal(code: InvocationErrorCode, pointer: string, where: "key" | "value"): StepResult<never> {
  return refuse(
    code,
    `HOST: payload: ${where === "key" ? `a key of the object at ${pointer}` : `the value at ${pointer}`} carries ${WHAT[code] ?? "something a payload may not carry"}; capabilities take plain data only.`,
    pointer,
  );
}

/** Problems a key has by its name alone. */
function judgeKey(key: string): InvocationErrorCode | undefined {
  if (isForbiddenKey(key)) return "payload_prototype_key";
  return FORBIDDEN_KEYS.get(foldKey(key));
}

/** The judge of one string (a key or a value), closed over the options. */
function stringJudge(options: PayloadGuardOptions): (text: string) => InvocationErrorCode | undefined {
  const { names, values } = environmentTable(options.environment ?? process.env, (options.now ?? Date.now)());
  const skillFolders = options.skillFolders.map((folder) => resolve(folder));
  const allowedRoots = options.allowedRoots.map((folder) => resolve(folder));
  return (text) => {
    if (text.length === 0) return undefined;
    const path = hostPathOf(text, allowedRoots[0]);
    if (SKILL_FILE.test(text) || SKILL_URI.test(text)) return "payload_skill_path";
    if (path !== undefined && skillFolders.some((folder) => inside(path, folder)))
      return "payload_skill_path";
    if (names.has(text) || ENV_ASSIGNMENT.test(text) || ENV_REFERENCE.test(text)) return "payload_env";
    if (values.some((value) => text.includes(value))) return "payload_env";
    if (COMMAND_TEMPLATE.some((pattern) => pattern.test(text))) return "payload_command_template";
    if (SHELL_SNIPPET.some((pattern) => pattern.test(text))) return "payload_shell";
    if (path !== undefined && !allowedRoots.some((root) => inside(path, root))) return "payload_host_path";
    return undefined;
  };
}

/** The environment's table, read again once it is {@link ENVIRONMENT_TABLE_TTL_MS} old (or the clock went back). */
function environmentTable(
  environment: Readonly<Record<string, string | undefined>>,
  now: number,
): EnvironmentTable {
  const kept = environmentTables.get(environment);
  if (kept !== undefined && now >= kept.readAt && now - kept.readAt < ENVIRONMENT_TABLE_TTL_MS) return kept;
  const names = new Set<string>();
  const values: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (/^[A-Z][A-Z0-9_]{2,}$/.test(name)) names.add(name);
    if (value === undefined) continue;
    const secret = SECRET_NAME.test(name) && value.length >= 6;
    if (secret || (value.length >= LONG_ENV_VALUE && !HOST_PATH_START.test(value) && !value.includes(":/")))
      values.push(value);
  }
  const table = { names, values, readAt: now };
  environmentTables.set(environment, table);
  return table;
}

/**
 * The absolute path a string names, when it names one: an absolute or home-relative path, a
 * `file:` URI, a drive letter or UNC path (never allowed: no root is one), or a relative path
 * with a `..` segment, resolved against the first allowed root (the workspace).
 */
function hostPathOf(text: string, base: string | undefined): string | undefined {
  if (HOST_PATH_START.test(text)) {
    if (/^file:/i.test(text)) return hostPathOf(decodedFileUri(text), base) ?? "\0file";
    if (text.startsWith("~")) return resolve(homedir(), text.slice(2));
    if (isAbsolute(text)) return resolve(text);
    return "\0foreign";
  }
  if (PARENT_SEGMENT.test(text)) return resolve(base ?? "/\0no-workspace", text);
  return undefined;
}

function decodedFileUri(text: string): string {
  try {
    return decodeURIComponent(text.replace(/^file:(\/\/[^/]*)?/i, ""));
  } catch {
    return "\0file";
  }
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** A JSON copy of one value: an empty container for objects and arrays (filled by the walk), `undefined` for non-JSON. */
function copyValue(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return [];
  if (isPlainObject(value)) return {};
  return undefined;
}

function definedLimits(options: PayloadGuardOptions): Partial<typeof DEFAULT_PAYLOAD_LIMITS> {
  return {
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.maxKeys !== undefined ? { maxKeys: options.maxKeys } : {}),
  } as Partial<typeof DEFAULT_PAYLOAD_LIMITS>;
}
