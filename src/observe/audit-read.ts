import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, SkillgateError } from "../core/errors.js";
import { parseAuditLine } from "./audit-line.js";
import type { AuditEvent, AuditEventType } from "./events.js";

/**
 * Reading the audit folder: the rotated files in the order they were rotated, then the
 * current file, each line an event. Lines that are torn or not events are skipped.
 */

/** Which events {@link queryAuditFolder} returns; every given field must match. */
export interface AuditQuery {
  /** Events of this chat (scope kind `chat`). */
  readonly chat?: string;
  /** Events of this job (scope kind `job`). */
  readonly job?: string;
  readonly skill?: string;
  readonly tool?: string;
  readonly type?: AuditEventType;
  readonly requestId?: string;
  /** Events at or after this time (an ISO text, a Date or milliseconds since the epoch). */
  readonly since?: string | Date | number;
  /** At most this many events: the newest ones. */
  readonly limit?: number;
}

/** The audit folder's name inside the data folder. */
export const AUDIT_FOLDER = "audit";
/** The file events are appended to; rotated files are `audit-<time>.jsonl` beside it. */
export const AUDIT_FILE = "audit.jsonl";

const ROTATED = /^audit-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z)(?:-(\d+))?\.jsonl$/;

/** `audit-<ISO time, colons as dashes>[-suffix].jsonl`: no colon, so the name works on every platform. */
export function rotatedName(time: number, suffix = 0): string {
  const stamp = new Date(time).toISOString().replaceAll(":", "-");
  return `audit-${stamp}${suffix > 0 ? `-${suffix}` : ""}.jsonl`;
}

/** The files of an audit folder, oldest first: rotated files by time and suffix, then `audit.jsonl`. */
export function auditFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw unreadable(folder, error);
  }
  const rotated = names
    .map((name) => ({ name, match: ROTATED.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .sort(
      (left, right) =>
        compare(left.match[1] ?? "", right.match[1] ?? "") ||
        Number(left.match[2] ?? 0) - Number(right.match[2] ?? 0),
    )
    .map((entry) => join(folder, entry.name));
  return names.includes(AUDIT_FILE) ? [...rotated, join(folder, AUDIT_FILE)] : rotated;
}

/**
 * The events of `folder` that match `query`, oldest first. With a limit, files are read
 * newest first and reading stops once enough events are found.
 */
export function queryAuditFolder(folder: string, query: AuditQuery = {}): AuditEvent[] {
  const limit = checkLimit(query.limit);
  const since = sinceMilliseconds(query.since);
  const matches = (event: AuditEvent): boolean =>
    (query.chat === undefined || (event.scope.kind === "chat" && event.scope.id === query.chat)) &&
    (query.job === undefined || (event.scope.kind === "job" && event.scope.id === query.job)) &&
    (query.skill === undefined || event.skill === query.skill) &&
    (query.tool === undefined || event.tool === query.tool) &&
    (query.type === undefined || event.type === query.type) &&
    (query.requestId === undefined || event.requestId === query.requestId) &&
    (since === undefined || Date.parse(event.time) >= since);
  const newestFirst: AuditEvent[][] = [];
  let found = 0;
  for (const file of auditFiles(folder).reverse()) {
    const events = readEvents(file).filter(matches);
    newestFirst.push(events);
    found += events.length;
    if (limit !== undefined && found >= limit) break;
  }
  const all = newestFirst.reverse().flat();
  return limit === undefined ? all : all.slice(Math.max(0, all.length - limit));
}

function readEvents(file: string): AuditEvent[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    // Rotated away after the listing: a query is a snapshot of the files it listed.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw unreadable(file, error);
  }
  const events: AuditEvent[] = [];
  for (const line of text.split("\n")) {
    const event = parseAuditLine(line);
    if (event !== undefined) events.push(event);
  }
  return events;
}

function unreadable(path: string, error: unknown): SkillgateError {
  const reason =
    (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new SkillgateError(
    "io_error",
    `cannot read the audit log at ${path}: ${reason}`,
    { path },
    { cause: error },
  );
}

function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new InvalidArgumentError("limit", `limit must be a whole number above 0 (got ${limit})`);
  return limit;
}

function sinceMilliseconds(since: AuditQuery["since"]): number | undefined {
  if (since === undefined) return undefined;
  const milliseconds =
    typeof since === "number" ? since : since instanceof Date ? since.getTime() : Date.parse(since);
  if (!Number.isFinite(milliseconds))
    throw new InvalidArgumentError("since", `since must be a date and time (got ${String(since)})`);
  return milliseconds;
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
