import { join } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { resolveFolders } from "../../../core/folders.js";
import { AUDIT_FOLDER } from "../../../observe/audit-log.js";
import { queryAuditFolder } from "../../../observe/audit-read.js";
import type { AuditEvent } from "../../../observe/events.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, printJson, type Style, table } from "../output.js";
import { positiveInteger } from "../parse.js";

/** Events the table shows when no `--limit` is given; `--json` prints every match unless limited. */
export const DEFAULT_AUDIT_TABLE_LIMIT = 50;

interface AuditOptions {
  readonly chat?: string;
  readonly job?: string;
  readonly skill?: string;
  readonly tool?: string;
  readonly since?: string;
  readonly limit?: number;
  readonly json?: boolean;
  readonly jsonl?: boolean;
}

/**
 * `skillgate audit [--chat ID | --job ID] [--skill NAME] [--tool NAME] [--since TIME]
 * [--limit N] [--json | --jsonl]`: the audit log of the data folder, oldest first and newest
 * last, as a table, as one JSON array (`--json`, like every other command's `--json`), or as
 * JSON lines (`--jsonl`, one event per line, the file's own form, for `jq -c` and streaming).
 */
export function registerAudit(program: Command, output: CliOutput): void {
  program
    .command("audit")
    .description("show the audit log: classifications, policy decisions, approvals and finished calls")
    .option("--chat <id>", "only events of this chat")
    .addOption(new Option("--job <id>", "only events of this job").conflicts("chat"))
    .option("--skill <name>", "only events of this skill")
    .option("--tool <name>", "only events of this tool (load_skill, run_skill_script, …)")
    .option("--since <time>", "only events at or after this ISO date and time", isoTime("--since"))
    .option(
      "--limit <n>",
      `the newest N events (default ${DEFAULT_AUDIT_TABLE_LIMIT} for the table, all for --json and --jsonl)`,
      positiveInteger("--limit"),
    )
    .option("--json", "print one JSON array of the events")
    .addOption(
      new Option("--jsonl", "print JSON lines: one event per line, as the log file holds them").conflicts(
        "json",
      ),
    )
    .action((options: AuditOptions, command: Command) => {
      const data = resolveFolders(skillgateOptions(command)).data;
      const machine = options.json === true || options.jsonl === true;
      const limit = options.limit ?? (machine ? undefined : DEFAULT_AUDIT_TABLE_LIMIT);
      const events = queryAuditFolder(join(data, AUDIT_FOLDER), {
        ...(options.chat !== undefined ? { chat: options.chat } : {}),
        ...(options.job !== undefined ? { job: options.job } : {}),
        ...(options.skill !== undefined ? { skill: options.skill } : {}),
        ...(options.tool !== undefined ? { tool: options.tool } : {}),
        ...(options.since !== undefined ? { since: options.since } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      if (options.json) {
        printJson(output, events);
        return;
      }
      if (options.jsonl) {
        output.out(events.map((event) => `${JSON.stringify(event)}\n`).join(""));
        return;
      }
      if (events.length === 0) {
        output.out("No audit events match.\n");
        return;
      }
      const rows = events.map(row);
      output.out(`${table(output, HEADER, rows, (index, column) => styleOf(rows[index], column))}\n`);
    });
}

const HEADER = [
  "TIME",
  "EVENT",
  "SCOPE",
  "TOOL",
  "SKILL",
  "HASH8",
  "TIER",
  "RULE",
  "DECISION",
  "STATUS",
  "LATENCY",
] as const;
const DECISION_COLUMN = HEADER.indexOf("DECISION");
const STATUS_COLUMN = HEADER.indexOf("STATUS");

const SHORT_TYPES: Record<AuditEvent["type"], string> = {
  "tool-call-classified": "classified",
  "policy-decided": "decided",
  "policy-narrowed": "narrowed",
  "approval-requested": "asked",
  "approval-answered": "answered",
  "tool-call-finished": "finished",
  "network-refused": "net-refused",
  "run-limits": "limits",
  "workspace-changed": "ws-changed",
  "node-run": "node-run",
  "queue-run-finished": "queued",
  "/skill/invoked": "cap-invoked",
  "/skill/completed": "cap-completed",
  "/skill/failed": "cap-failed",
  "capability-path-touched": "cap-touched",
  "/skill/discovered": "cap-discovered",
  "/skill/registration/decided": "cap-decided",
  "capability-reload-step": "reload-step",
  "/skill/reloaded": "reloaded",
  "/skill/reload_failed": "reload-failed",
  "capability-generation-waiting": "gen-waiting",
};

/** One table row; an approval's answer shows in the status column. */
function row(event: AuditEvent): string[] {
  const status =
    event.status ?? event.registration ?? (event.answer !== undefined ? `answer:${event.answer}` : undefined);
  return [
    event.time,
    SHORT_TYPES[event.type] ?? event.type,
    `${event.scope.kind}:${event.scope.id}`,
    event.tool,
    event.skill ?? event.skillId,
    event.hash8,
    event.tier,
    event.rule ?? event.reloadStep,
    event.decision,
    status,
    event.latencyMs === undefined ? undefined : `${event.latencyMs} ms`,
  ].map((cell) => (cell === undefined ? "-" : printable(cell)));
}

function styleOf(cells: readonly string[] | undefined, column: number): Style | undefined {
  const cell = cells?.[column];
  if (column === DECISION_COLUMN) return cell === "allow" ? "green" : cell === "deny" ? "red" : undefined;
  if (column !== STATUS_COLUMN || cell === undefined) return undefined;
  if (cell === "ok" || cell === "answer:once" || cell.startsWith("answer:always")) return "green";
  if (cell === "failed" || cell === "timed_out" || cell === "interrupted") return "red";
  if (cell === "-") return undefined;
  return "yellow";
}

/**
 * Ids come from chats and jobs a remote client may name: control characters (a terminal
 * escape, a line break) are shown as `\xNN` rather than sent to the terminal.
 */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (character) => {
    return `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
}

/** A commander parser for an ISO date and time; the error names the flag. */
function isoTime(flag: string): (value: string) => string {
  return (value: string) => {
    if (!/^\d{4}-\d\d-\d\d/.test(value) || !Number.isFinite(Date.parse(value)))
      throw new InvalidArgumentError(
        `${flag} takes an ISO date and time such as 2026-01-02T03:04:05Z (got "${value}").`,
      );
    return value;
  };
}
