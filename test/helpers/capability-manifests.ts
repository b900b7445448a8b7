import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { SEED_004_FIXTURE } from "./capability-tree.js";

/** A mutable copy of the seed's adapter manifest (code-review-skill), as data. */
export function seedAdapterManifest(): Record<string, unknown> {
  return parse(
    readFileSync(join(SEED_004_FIXTURE, "config", "adapters", "code-review-skill.yaml"), "utf8"),
  ) as Record<string, unknown>;
}

/** A mutable copy of the seed's Lua capability manifest (config-lint-skill), as data. */
export function seedLuaManifest(): Record<string, unknown> {
  return parse(
    readFileSync(
      join(SEED_004_FIXTURE, "project", ".skillgate", "capabilities", "config-lint-skill.yaml"),
      "utf8",
    ),
  ) as Record<string, unknown>;
}

/** `value` with `path` (dotted) set to `to`, or removed when `to` is undefined. */
export function withField(
  value: Record<string, unknown>,
  path: string,
  to: unknown,
): Record<string, unknown> {
  const copy = structuredClone(value);
  const names = path.split(".");
  let at: Record<string, unknown> = copy;
  for (const name of names.slice(0, -1)) at = at[name] as Record<string, unknown>;
  const last = names.at(-1) as string;
  if (to === undefined) delete at[last];
  else at[last] = to;
  return copy;
}

/** YAML text of a manifest. */
export function yamlOf(value: unknown): string {
  return stringify(value);
}
