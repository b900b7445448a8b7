import { isPlainObject } from "../../core/safe-json.js";
import { LINT_RULES, type LintWarning } from "../lint/lint-types.js";
import { readEditArguments } from "./edit-arguments.js";
import type { EditPlan } from "./edit-plan-types.js";

/**
 * Reads a plan file back, checking every field: a plan is applied exactly as stored, so a
 * file that is not in this shape (edited by hand, cut short) is refused, never guessed at.
 * Throws an Error naming the first field that is wrong.
 */
export function parseStoredPlan(raw: unknown, id: string): EditPlan {
  const fail = (field: string): never => {
    throw new Error(`the plan's ${field} is missing or malformed`);
  };
  if (!isPlainObject(raw)) return fail("top level");
  if (raw.id !== id) fail("id");
  const text = (field: string): string => {
    const value = raw[field];
    return typeof value === "string" ? value : fail(field);
  };
  const hash = (field: string): string => (/^[0-9a-f]{64}$/.test(text(field)) ? text(field) : fail(field));
  const time = (field: string): string =>
    Number.isFinite(Date.parse(text(field))) ? text(field) : fail(field);
  const changes = raw.changes;
  if (!isPlainObject(changes) || !isPlainObject(changes.write) || !Array.isArray(changes.remove))
    return fail("changes");
  const write: Record<string, string> = {};
  for (const [path, content] of Object.entries(changes.write)) {
    if (typeof content !== "string") fail("changes.write");
    Object.defineProperty(write, path, { value: content, enumerable: true });
  }
  const remove = changes.remove.map((path: unknown) =>
    typeof path === "string" ? path : fail("changes.remove"),
  );
  if (typeof raw.diffTruncated !== "boolean") fail("diffTruncated");
  if (!Array.isArray(raw.warnings)) fail("warnings");
  let request: EditPlan["request"];
  try {
    request = readEditArguments(raw.request);
  } catch {
    return fail("request");
  }
  return {
    id,
    skill: text("skill"),
    baseHash: hash("baseHash"),
    resultHash: hash("resultHash"),
    changes: { write, remove },
    request,
    createdAt: time("createdAt"),
    expiresAt: time("expiresAt"),
    diff: text("diff"),
    diffTruncated: raw.diffTruncated as boolean,
    warnings: (raw.warnings as unknown[]).map((warning) => readWarning(warning) ?? fail("warnings")),
  };
}

function readWarning(raw: unknown): LintWarning | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { rule, file, line, message } = raw;
  if (!(LINT_RULES as readonly unknown[]).includes(rule)) return undefined;
  if (typeof file !== "string" || typeof message !== "string" || typeof line !== "number") return undefined;
  return { rule: rule as LintWarning["rule"], file, line, message };
}
