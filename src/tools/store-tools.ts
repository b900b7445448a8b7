import type { OwnerNotice } from "../observe/notifications.js";
import { loadSkillText } from "../skill/load-skill.js";
import type { JsonSchema } from "../skill/parameters-schema.js";
import { readSkillFileSummary } from "../store/drafts/draft-metadata.js";
import { draftSkill, isDraftLocked, readDraftArguments } from "../store/drafts/index.js";
import {
  applyEditPlan,
  type EditArguments,
  type EditPlan,
  getPlan,
  listPlans,
  planEdit,
  readEditArguments,
  rejectEditPlan,
} from "../store/edits/index.js";
import type { Store } from "../store/store.js";
import { FILE_TEXTS, hostText } from "./call-texts.js";
import { checkResourcePath, MAX_RESOURCE_BYTES } from "./skill-files.js";
import { readInput } from "./skill-tools.js";
import type { AnyTool, PreparedCall, ToolDefinition } from "./tool.js";

/** The store the store tools work on, opened once per skillgate. */
export interface StoreToolsEnvironment {
  readonly store: () => Promise<Store>;
  /**
   * Told after a draft is saved or an edit applied, for the owner's notifications
   * (docs/notifications.md). Called without waiting: the model's answer never waits for a
   * notification, and a failing one never changes it.
   */
  readonly authored?: (notice: OwnerNotice) => void;
  /** Which named servers can run a skill (inside `skillgate serve`); without it `list_skills` names none. */
  readonly nodes?: NodeDirectory;
}

/** Which nodes may run a skill (the owner's scope ∩ the enrolled nodes) and which of them are online. */
export interface NodeDirectory {
  nodesFor(skill: string): { readonly scope: readonly string[]; readonly online: readonly string[] };
}

/** The `list_skills` note of a node-mode skill: where it can run now. */
function nodesNote(environment: StoreToolsEnvironment, skill: string): string {
  const nodes = environment.nodes?.nodesFor(skill);
  if (nodes === undefined) return " [nodes: none here; node runs go through skillgate serve]";
  if (nodes.scope.length === 0) return " [nodes: none enrolled for it]";
  const online = nodes.online.length > 0 ? nodes.online.join(", ") : "none";
  return ` [nodes: ${nodes.scope.join(", ")}; online: ${online}]`;
}

function listSkills(environment: StoreToolsEnvironment): ToolDefinition<{ includeDisabled?: boolean }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      includeDisabled: { type: "boolean", description: "Also list disabled skills and drafts." },
    },
    additionalProperties: false,
  };
  return {
    name: "list_skills",
    tier: "read",
    description:
      "List the skills in the store: enabled and built-in ones, with author, runner and tier; drafts also show the chats they came from and why. " +
      'Send {} or {"includeDisabled": true} to include disabled skills and drafts.',
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "list the store's skills"),
    execute: async ({ includeDisabled }) => {
      try {
        const store = await environment.store();
        const lines: string[] = [];
        for (const summary of await store.list()) {
          if (!summary.enabled && includeDisabled !== true) continue;
          const text = Buffer.from(await store.readFile(summary.name, "SKILL.md")).toString("utf8");
          const { description, metadata } = readSkillFileSummary(text);
          const governance = loadSkillText(text, summary.name, { source: "store" }).skill?.governance;
          const state = summary.enabled ? "enabled" : "disabled";
          const author = metadata.author ?? (summary.source === "builtin" ? "built-in" : summary.source);
          let line = `- ${summary.name} (${state}; author ${author}; runner ${governance?.execution ?? "?"}; tier ${governance?.tier ?? "?"}): ${description}`;
          if (governance?.execution === "node") line += nodesNote(environment, summary.name);
          if (metadata.author === "assistant") {
            if (metadata.sourceChats.length > 0) line += ` [chats: ${metadata.sourceChats.join(", ")}]`;
            if (metadata.rationale) line += ` [why: ${metadata.rationale}]`;
          }
          lines.push(line);
        }
        return lines.length > 0 ? lines.join("\n") : "The store has no skills to list.";
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

function getSkill(environment: StoreToolsEnvironment): ToolDefinition<{ skill: string; path?: string }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      skill: { type: "string", minLength: 1, description: "The skill's name." },
      path: {
        type: "string",
        minLength: 1,
        description: "One file to read instead of SKILL.md and the file list.",
      },
    },
    required: ["skill"],
    additionalProperties: false,
  };
  return {
    name: "get_skill",
    tier: "read",
    description:
      'Read a stored skill, enabled or not, without running anything. Send {"skill": "NAME"} for its SKILL.md and file list, ' +
      'or {"skill": "NAME", "path": "scripts/run.py"} for one file.',
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "read a stored skill"),
    execute: async ({ skill, path }) => {
      try {
        const stored = await (await environment.store()).get(skill);
        const files = stored.files.map((file) => file.path);
        if (path === undefined) {
          const list = stored.files.map((file) => `${file.path} (${file.size} bytes)`).join("\n");
          return `${stored.skillFile}\n<files hash="${stored.hash}" enabled="${stored.enabled}">\n${list}\n</files>`;
        }
        const checked = checkResourcePath(path, files);
        if (!checked.ok) return checked.message;
        const bytes = Buffer.from(await (await environment.store()).readFile(skill, checked.path));
        if (bytes.includes(0)) return FILE_TEXTS.storedBinary(checked.path, bytes.length);
        const text = bytes.subarray(0, MAX_RESOURCE_BYTES).toString("utf8");
        return bytes.length > MAX_RESOURCE_BYTES
          ? `${text}\n…[${bytes.length - MAX_RESOURCE_BYTES} more bytes not shown]`
          : text;
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

function draftSkillTool(
  environment: StoreToolsEnvironment,
): ToolDefinition<ReturnType<typeof readDraftArguments>> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      name: { type: "string", description: "The new skill's name: lower-case letters, digits and hyphens." },
      description: {
        type: "string",
        description: "What the skill does and when to use it (at most 1024 characters).",
      },
      body: { type: "string", description: "The SKILL.md instructions (Markdown, without front matter)." },
      files: {
        type: "object",
        additionalProperties: { type: "string" },
        description:
          'Other files, path to text, under scripts/, references/ or assets/, e.g. {"scripts/run.py": "print(1)"}.',
      },
      tier: { enum: ["read", "change", "destructive"] },
      execution: { enum: ["local", "sandbox", "node", "queue"] },
      allowedDomains: { type: "array", items: { type: "string" } },
      parametersSchema: {
        type: ["object", "string"],
        description: 'The JSON Schema of the scripts\' arguments (an object with "type": "object").',
      },
      sourceChats: {
        type: "array",
        items: { type: "string" },
        maxItems: 10,
        description: "The chats that showed the need, at most 10.",
      },
      rationale: { type: "string", description: "Why this skill should exist, at most 1,000 characters." },
      update: {
        type: "boolean",
        description: "Rewrite your own draft of this name instead of creating one.",
      },
    },
    required: ["name", "description", "body", "sourceChats", "rationale"],
    additionalProperties: false,
  };
  return {
    name: "draft_skill",
    tier: "draft",
    description:
      "Write a new skill as a draft for the owner to review; it is saved disabled and cannot run until they enable it. " +
      'Send {"name": "disk-report", "description": "Report disk usage. Use when asked about free space.", "body": "# Disk report\\n...", ' +
      '"files": {"scripts/report.py": "..."}, "tier": "read", "sourceChats": ["CHAT_ID"], "rationale": "Asked for three times."}. ' +
      'To change your own draft again before review, send the same with "update": true. Skills the owner enabled or edited cannot be drafted over.',
    inputSchema,
    // Read by readDraftArguments / readEditArguments: the object, or JSON text holding it.
    acceptedSchema: { anyOf: [inputSchema, { type: "string" }] },
    prepare: async (raw): Promise<PreparedCall<ReturnType<typeof readDraftArguments>>> => {
      try {
        const input = readDraftArguments(raw);
        const store = await environment.store();
        const locked = await isDraftLocked(store, input.name);
        return {
          ok: true,
          input,
          subject: {
            tier: "draft",
            skill: input.name,
            draftTargetLocked: locked,
            summary: `save a draft of ${input.name}`,
          },
        };
      } catch (error) {
        return { ok: false, message: hostText(error), subject: { tier: "draft", summary: "save a draft" } };
      }
    },
    execute: async (input) => {
      try {
        const result = await draftSkill(await environment.store(), input);
        environment.authored?.({
          kind: "draft-saved",
          skill: result.name,
          hash: result.hash,
          created: result.created,
        });
        const warnings = result.warnings
          .map(
            (warning) =>
              `\n- review warning (${warning.rule}, ${warning.file}:${warning.line}): ${warning.message}`,
          )
          .join("");
        return `Saved ${result.created ? "a new draft" : "your draft"} ${result.name}: disabled until the owner reviews and enables it (hash ${result.hash.slice(0, 8)}).${warnings}`;
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

function editSkillTool(
  environment: StoreToolsEnvironment,
): ToolDefinition<{ args: EditArguments; holder: { plan?: EditPlan } }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      skillName: { type: "string", description: "The skill to change." },
      files: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Files to create or replace, path to full text.",
      },
      removeFiles: { type: "array", items: { type: "string" }, description: "Files to remove." },
      description: { type: "string" },
      tier: { enum: ["read", "change", "destructive"] },
      execution: { enum: ["local", "sandbox", "node", "queue"] },
      allowedDomains: { type: "array", items: { type: "string" } },
      parametersSchema: { type: ["object", "string"] },
      reason: { type: "string", description: "Why, shown to the owner with the diff." },
    },
    required: ["skillName", "reason"],
    additionalProperties: false,
  };
  return {
    name: "edit_skill",
    tier: "skill-edit",
    description:
      "Propose a change to an existing skill. The owner sees a diff of exactly your change and approves or declines it; nothing changes before that. " +
      'Send {"skillName": "backup-check", "files": {"scripts/check.py": "...whole new text..."}, "reason": "Also check the second disk."}. ' +
      "Field names are case-sensitive; unknown or repeated fields are refused. Not available in plan mode or in jobs.",
    inputSchema,
    // Read by readDraftArguments / readEditArguments: the object, or JSON text holding it.
    acceptedSchema: { anyOf: [inputSchema, { type: "string" }] },
    prepare: (raw) => {
      let args: EditArguments;
      try {
        args = readEditArguments(raw);
      } catch (error) {
        return {
          ok: false,
          message: hostText(error),
          subject: { tier: "skill-edit", summary: "edit a skill" },
        };
      }
      const holder: { plan?: EditPlan } = {};
      return {
        ok: true,
        input: { args, holder },
        subject: {
          tier: "skill-edit",
          skill: args.skillName,
          summary: `edit ${args.skillName}: ${args.reason}`,
          prepareApproval: async () => {
            const store = await environment.store();
            const { plan, made } = await planOnce(store, args);
            holder.plan = plan;
            return {
              detail: plan.diff,
              reference: plan.id,
              hash: plan.baseHash,
              // Only a plan this call made is thrown away; one it shares with a waiting request stays.
              ...(made
                ? {
                    discard: async () => {
                      await rejectEditPlan(store, plan.id);
                    },
                  }
                : {}),
            };
          },
        },
      };
    },
    execute: async ({ args, holder }) => {
      try {
        const store = await environment.store();
        const plan = holder.plan ?? (await planEdit(store, args));
        const applied = await applyEditPlan(store, plan.id);
        environment.authored?.({
          kind: "edit-applied",
          skill: applied.plan.skill,
          hash: applied.result.hash,
          plan: applied.plan.id,
        });
        return `Applied the approved edit to ${applied.plan.skill} (hash ${applied.result.hash.slice(0, 8)}).`;
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

/**
 * The plan for an edit, made once: a plan already waiting for the same change (same skill,
 * base hash, resulting content and reason) is used instead of a second one, so the model's
 * retry names the plan its waiting request names, and the plan the owner approved is the one
 * written. `made` says whether this call made the plan.
 */
async function planOnce(store: Store, args: EditArguments): Promise<{ plan: EditPlan; made: boolean }> {
  const plan = await planEdit(store, args);
  const same = (await listPlans(store)).find(
    (waiting) =>
      waiting.id !== plan.id &&
      waiting.skill === plan.skill &&
      waiting.baseHash === plan.baseHash &&
      waiting.resultHash === plan.resultHash &&
      waiting.reason === plan.request.reason,
  );
  if (same === undefined) return { plan, made: true };
  try {
    const earlier = await getPlan(store, same.id);
    await rejectEditPlan(store, plan.id);
    return { plan: earlier, made: false };
  } catch {
    // The earlier plan went (applied, rejected, expired) meanwhile: this call's own plan stands.
    return { plan, made: true };
  }
}

/** The store tools: list_skills, get_skill (read), draft_skill (draft), edit_skill (skill-edit). */
export function storeTools(environment: StoreToolsEnvironment): AnyTool[] {
  return [
    listSkills(environment),
    getSkill(environment),
    draftSkillTool(environment),
    editSkillTool(environment),
  ];
}
