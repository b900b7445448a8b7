import { isPlainObject } from "../../core/safe-json.js";
import { type CapabilityProblem, problem } from "../problems.js";

/**
 * Reads a manifest's fields one by one and collects every problem, so one pass reports all
 * that is wrong with a file. A missing required field is `missing_field` (an error), a
 * malformed one `invalid_field` (an error), an unknown key `unknown_field` (a warning: a
 * newer manifest still loads, and `doctor` shows what was ignored).
 */
export class ManifestFields {
  readonly problems: CapabilityProblem[] = [];
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  /** Adds a problem about `field`. */
  add(code: CapabilityProblem["code"], severity: "error" | "warning", field: string, message: string): void {
    this.problems.push(problem(code, severity, `${field} ${message}`, { path: this.#file, field }));
  }

  /** Adds a problem that was built elsewhere (a path or a schema). */
  push(...items: readonly CapabilityProblem[]): void {
    this.problems.push(...items);
  }

  missing(field: string): void {
    this.add("missing_field", "error", field, "is required");
  }

  /** Warns about each key of `value` not in `known`. */
  unknown(value: Record<string, unknown>, where: string, known: readonly string[]): void {
    for (const key of Object.keys(value))
      if (!known.includes(key))
        this.add(
          "unknown_field",
          "warning",
          where === "" ? key : `${where}.${key}`,
          "is not a known field; it is ignored",
        );
  }

  /** A nested mapping, `{}` when absent (and a problem when present but not a mapping, or absent but required). */
  mapping(
    value: Record<string, unknown>,
    key: string,
    field: string,
    required = false,
  ): Record<string, unknown> {
    const inner = value[key];
    if (inner === undefined || inner === null) {
      if (required) this.missing(field);
      return {};
    }
    if (isPlainObject(inner)) return inner;
    this.add("invalid_field", "error", field, "must be a mapping");
    return {};
  }

  /** Non-empty text matching `pattern` when given. */
  text(
    value: Record<string, unknown>,
    key: string,
    field: string,
    options: { required?: boolean; pattern?: RegExp; max?: number } = {},
  ): string | undefined {
    const inner = value[key];
    if (inner === undefined || inner === null) {
      if (options.required === true) this.missing(field);
      return undefined;
    }
    if (typeof inner !== "string" || inner.length === 0) {
      this.add("invalid_field", "error", field, "must be non-empty text");
      return undefined;
    }
    if (inner.length > (options.max ?? 4096)) {
      this.add("invalid_field", "error", field, `is longer than ${options.max ?? 4096} characters`);
      return undefined;
    }
    if (options.pattern !== undefined && !options.pattern.test(inner)) {
      this.add(
        "invalid_field",
        "error",
        field,
        `${JSON.stringify(inner)} does not match ${options.pattern.source}`,
      );
      return undefined;
    }
    return inner;
  }

  /** One of `choices`. */
  choice<Choice extends string>(
    value: Record<string, unknown>,
    key: string,
    field: string,
    choices: readonly Choice[],
    required: boolean,
  ): Choice | undefined {
    const inner = value[key];
    if (inner === undefined || inner === null) {
      if (required) this.missing(field);
      return undefined;
    }
    if (typeof inner === "string" && (choices as readonly string[]).includes(inner)) return inner as Choice;
    this.add("invalid_field", "error", field, `must be one of ${choices.join(", ")}`);
    return undefined;
  }

  flag(value: Record<string, unknown>, key: string, field: string, fallback: boolean): boolean {
    const inner = value[key];
    if (inner === undefined || inner === null) return fallback;
    if (typeof inner === "boolean") return inner;
    this.add("invalid_field", "error", field, "must be true or false");
    return fallback;
  }

  /** A whole number within bounds. */
  integer(
    value: Record<string, unknown>,
    key: string,
    field: string,
    bounds: { min: number; max: number },
    fallback: number,
  ): number {
    const inner = value[key];
    if (inner === undefined || inner === null) return fallback;
    if (typeof inner === "number" && Number.isInteger(inner) && inner >= bounds.min && inner <= bounds.max)
      return inner;
    this.add("invalid_field", "error", field, `must be a whole number from ${bounds.min} to ${bounds.max}`);
    return fallback;
  }

  /** A list of non-empty texts, each matching `pattern` when given. */
  textList(
    value: Record<string, unknown>,
    key: string,
    field: string,
    options: { required?: boolean; pattern?: RegExp; max?: number } = {},
  ): string[] {
    const inner = value[key];
    if (inner === undefined || inner === null) {
      if (options.required === true) this.missing(field);
      return [];
    }
    if (!Array.isArray(inner) || !inner.every((item) => typeof item === "string" && item.length > 0)) {
      this.add("invalid_field", "error", field, "must be a list of text");
      return [];
    }
    if (inner.length > (options.max ?? 64)) {
      this.add("invalid_field", "error", field, `has more than ${options.max ?? 64} entries`);
      return [];
    }
    const bad =
      options.pattern === undefined ? [] : inner.filter((item: string) => !options.pattern?.test(item));
    if (bad.length > 0) {
      this.add(
        "invalid_field",
        "error",
        field,
        `has ${bad.map((item) => JSON.stringify(item)).join(", ")}, not matching ${options.pattern?.source}`,
      );
      return [];
    }
    return [...new Set(inner as string[])];
  }
}

/** A provider id: lower-case letters, digits, `.`, `_` and `-`, at most 64 characters. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** A capability name: dotted lower-case words, `workflow.code_review`. */
export const CAPABILITY_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
/** An environment variable name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A Lua function name. */
export const LUA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Bounds of the limits every manifest may set. */
export const LIMIT_BOUNDS = {
  timeoutMs: { min: 1, max: 600_000 },
  concurrency: { min: 1, max: 64 },
  promptBytes: { min: 1, max: 4 * 1024 * 1024 },
  priority: { min: -1000, max: 1000 },
} as const;

/** Limits when a manifest sets none. */
export const DEFAULT_LIMITS = { timeoutMs: 30_000, maxConcurrency: 1 } as const;
