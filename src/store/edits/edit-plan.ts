import { randomBytes } from "node:crypto";
import { type Clock, systemClock } from "../../core/clock.js";
import { GOVERNANCE_KEYS } from "../../skill/governance.js";
import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { BuiltinReadOnlyError, SkillChangedError } from "../errors.js";
import { checkFileSetLimits, checkTextFiles, type FileSet, writeFileSet } from "../file-sets.js";
import { checkSkillFolder } from "../folder-check.js";
import type { ScriptCheckOptions } from "../import/script-check.js";
import { lintSkillFiles } from "../lint/lint-skill.js";
import { gateFolderScripts } from "../script-gate.js";
import type { Store } from "../store.js";
import { type EditArguments, readEditArguments } from "./edit-arguments.js";
import type { EditPlan } from "./edit-plan-types.js";
import { editFrontMatter } from "./front-matter-edit.js";
import { buildPlanDiff } from "./plan-diff.js";
import { PLAN_LIFETIME_MS, PlanFiles } from "./plan-files.js";
import { refuse } from "./strict-arguments.js";

/** Options of the edit-plan functions. */
export interface EditPlanOptions {
  /** The clock plans are made and expire by. */
  readonly clock?: Clock;
  /** Check the new version's scripts when the plan is made, so the owner never approves one that cannot be saved. Default true. */
  readonly checkScripts?: boolean;
  readonly scriptCheck?: ScriptCheckOptions;
  /** How long a plan operation waits for the plans' lock. */
  readonly lockWaitMs?: number;
}

const READER = { tool: "edit_skill", code: "invalid_edit_arguments", maxTextLength: 0 } as const;

/**
 * Makes an edit plan (docs/drafts-and-edits.md, "Edits"): reads the `edit_skill` arguments once,
 * strictly ({@link readEditArguments}), resolves them against the skill as it is now into exactly
 * the files to write and remove, checks the result as the store would (limits, SKILL.md, scripts),
 * diffs it, and keeps it for {@link PLAN_LIFETIME_MS}. Nothing is written to the skill; the plan is
 * written when the owner approves it (`applyEditPlan`).
 */
export async function planEdit(store: Store, raw: unknown, options: EditPlanOptions = {}): Promise<EditPlan> {
  const request = readEditArguments(raw);
  const name = request.skillName;
  if (store.isBuiltIn(name)) throw new BuiltinReadOnlyError(name);
  const base = await readBase(store, name);
  const changes = resolveChanges(request, base.files);
  const next: FileSet = new Map(base.files);
  for (const path of changes.remove) next.delete(path);
  for (const [path, bytes] of checkTextFiles(changes.write, "files")) next.set(path, bytes);
  checkFileSetLimits(next);
  const resultHash = await checkVersion(store, name, next, options);
  const diff = buildPlanDiff(base.files, changes.write, changes.remove);
  const now = (options.clock ?? systemClock).now();
  const plan: EditPlan = {
    id: randomBytes(16).toString("hex"),
    skill: name,
    baseHash: base.hash,
    resultHash,
    changes,
    request,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + PLAN_LIFETIME_MS).toISOString(),
    diff: diff.text,
    diffTruncated: diff.truncated,
    warnings: lintSkillFiles(next),
  };
  await planFiles(store, options).add(plan, now);
  return plan;
}

/** The plan files of `store`. */
export function planFiles(store: Store, options: Pick<EditPlanOptions, "lockWaitMs"> = {}): PlanFiles {
  return new PlanFiles(store.folder, options.lockWaitMs !== undefined ? { waitMs: options.lockWaitMs } : {});
}

/** The skill's files and the hash they have, read as one version (retried when a write lands in between). */
async function readBase(store: Store, name: string): Promise<{ hash: string; files: FileSet }> {
  for (let attempt = 1; ; attempt += 1) {
    const skill = await store.get(name);
    const files: FileSet = new Map();
    for (const file of skill.files) files.set(file.path, await store.readFile(name, file.path));
    const again = await store.get(name);
    if (again.hash === skill.hash) return { hash: skill.hash, files };
    if (attempt === 3) throw new SkillChangedError(name, skill.hash, again.hash);
  }
}

/**
 * The files the plan writes and removes: the requested files, SKILL.md with the new
 * description and governance keys applied, minus writes that change nothing.
 */
function resolveChanges(request: EditArguments, base: FileSet): EditPlan["changes"] {
  for (const path of request.removeFiles) {
    if (!base.has(path))
      refuse(
        READER,
        "removeFiles",
        `edit_skill removeFiles names "${path}", which skill ${request.skillName} does not have.`,
      );
  }
  const write: Record<string, string> = {};
  for (const [path, content] of Object.entries(request.files))
    Object.defineProperty(write, path, { value: content, enumerable: true, writable: true });
  const metadata = metadataChanges(request);
  if (request.description !== undefined || Object.keys(metadata).length > 0) {
    const current = write[SKILL_FILE] ?? textOf(base.get(SKILL_FILE));
    write[SKILL_FILE] = editFrontMatter(current, request.skillName, {
      ...(request.description !== undefined ? { description: request.description } : {}),
      metadata,
    });
  }
  const changed: Record<string, string> = {};
  for (const [path, content] of Object.entries(write)) {
    const before = base.get(path);
    if (before === undefined || !Buffer.from(content, "utf8").equals(before))
      Object.defineProperty(changed, path, { value: content, enumerable: true });
  }
  if (Object.keys(changed).length === 0 && request.removeFiles.length === 0)
    refuse(
      READER,
      undefined,
      `edit_skill changes nothing: skill ${request.skillName} already has that content.`,
    );
  return { write: changed, remove: [...request.removeFiles] };
}

function metadataChanges(request: EditArguments): Record<string, string | null> {
  const metadata: Record<string, string | null> = {};
  if (request.tier !== undefined) metadata[GOVERNANCE_KEYS.tier] = request.tier;
  if (request.execution !== undefined) metadata[GOVERNANCE_KEYS.execution] = request.execution;
  if (request.allowedDomains !== undefined)
    metadata[GOVERNANCE_KEYS.allowedDomains] =
      request.allowedDomains.length === 0 ? null : request.allowedDomains.join(", ");
  if (request.parametersSchema !== undefined)
    metadata[GOVERNANCE_KEYS.parametersSchema] = request.parametersSchema;
  return metadata;
}

/** Stages the new version in the store's staging area and checks it whole; returns its hash. */
async function checkVersion(
  store: Store,
  name: string,
  files: FileSet,
  options: EditPlanOptions,
): Promise<string> {
  const staged = await store.createStagingFolder();
  try {
    await writeFileSet(staged, files);
    const checked = await checkSkillFolder(staged, { expectedName: name });
    await gateFolderScripts(
      { enabled: options.checkScripts !== false, options: options.scriptCheck ?? {} },
      name,
      staged,
    );
    return checked.hash;
  } finally {
    await store.discardStagingFolder(staged);
  }
}

function textOf(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "" : Buffer.from(bytes).toString("utf8");
}
