import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CapabilityDecision } from "../../src/capabilities/decide.js";
import { type CapabilityInspection, inspectCatalogCapabilities } from "../../src/capabilities/discover.js";
import type { CapabilityEventSink } from "../../src/capabilities/events.js";
import type { RuntimeMode } from "../../src/capabilities/types.js";
import { createCatalog } from "../../src/catalog/catalog.js";
import { makeTree } from "./skill-tree.js";

/** The seed 004 fixture: the adapter manifest with a real code-review skill, and the Lua manifest in a project. */
export const SEED_004_FIXTURE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures",
  "capabilities",
  "seed-004",
);

/** A capability tree: `config/`, `data/`, `home/` and `project/` inside a fresh temporary folder. */
export interface CapabilityTree {
  readonly tree: string;
  readonly config: string;
  readonly data: string;
  readonly home: string;
  readonly project: string;
}

/** An empty tree, or a copy of the seed 004 fixture with `seed: true`. */
export function capabilityTree(options: { seed?: boolean } = {}): CapabilityTree {
  const tree = makeTree("skillgate-capabilities-");
  if (options.seed === true) cpSync(SEED_004_FIXTURE, tree, { recursive: true });
  const folders = {
    tree,
    config: join(tree, "config"),
    data: join(tree, "data"),
    home: join(tree, "home"),
    project: join(tree, "project"),
  };
  for (const folder of [folders.config, folders.data, folders.home, folders.project])
    mkdirSync(folder, { recursive: true });
  return folders;
}

/** Writes `text` at `path` inside the tree, making its folders. */
export function writeIn(tree: CapabilityTree, path: string, text: string): string {
  const file = join(tree.tree, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Discovers and decides over the tree's catalog (no built-ins, the project as the one root). */
export function inspectTree(
  tree: CapabilityTree,
  options: { runtime?: RuntimeMode; project?: boolean; events?: CapabilityEventSink } = {},
): CapabilityInspection {
  const catalog = createCatalog({
    config: tree.config,
    data: tree.data,
    home: tree.home,
    roots: [tree.project],
    builtins: false,
  });
  return inspectCatalogCapabilities(catalog, {
    project: options.project ?? false,
    ...(options.runtime !== undefined ? { runtime: options.runtime } : {}),
    ...(options.events !== undefined ? { events: options.events } : {}),
  });
}

/** The decision about `id`; fails the test when there is none. */
export function decisionOf(inspection: CapabilityInspection, id: string): CapabilityDecision {
  const found = inspection.decisions.find((item) => item.decision.id === id);
  if (found === undefined)
    throw new Error(
      `no decision for ${id}; have ${inspection.decisions.map((item) => item.decision.id).join(", ")}`,
    );
  return found;
}
