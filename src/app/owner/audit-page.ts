import { readFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, SkillgateError } from "../../core/errors.js";
import { parseAuditLine } from "../../observe/audit-line.js";
import { AUDIT_FOLDER, auditFiles } from "../../observe/audit-read.js";
import type { AuditEvent } from "../../observe/events.js";

/** Events a page holds by default. */
export const DEFAULT_AUDIT_PAGE_LIMIT = 50;
/** The most events one page may hold. */
export const MAX_AUDIT_PAGE_LIMIT = 500;
/** The longest cursor accepted, in characters (a real one is a few dozen). */
const MAX_CURSOR_LENGTH = 200;

/** Which events a page shows; every given field must match. */
export interface AuditPageQuery {
  readonly skill?: string;
  readonly chat?: string;
  /** Events at or after this time (ISO text or milliseconds since the epoch). */
  readonly since?: string | number;
  /** Where the previous page ended ({@link AuditPage.next}); absent for the newest page. */
  readonly cursor?: string;
  /** 1 to {@link MAX_AUDIT_PAGE_LIMIT}; default {@link DEFAULT_AUDIT_PAGE_LIMIT}. */
  readonly limit?: number;
}

/** One page of the audit trail, newest event first. */
export interface AuditPage {
  readonly events: readonly AuditEvent[];
  /** The cursor of the next (older) page; absent on the last page. */
  readonly next?: string;
}

/**
 * A cursor names the last event shown: its time and how many events of that same time were
 * shown. It names no file or line, so it stays good when the log rotates between pages.
 */
interface Cursor {
  readonly time: number;
  readonly skip: number;
}

/**
 * A page of `<data>/audit`, newest first. Files are read newest first, one at a time, and
 * reading stops once the page is full, so a page costs at most the files it reaches
 * (each at most the rotation size, docs/audit.md).
 */
export function auditPage(dataFolder: string, query: AuditPageQuery = {}): AuditPage {
  const limit = query.limit ?? DEFAULT_AUDIT_PAGE_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE_LIMIT)
    throw new InvalidArgumentError("limit", `limit must be a whole number from 1 to ${MAX_AUDIT_PAGE_LIMIT}`);
  const since = sinceOf(query.since);
  const cursor = query.cursor === undefined ? undefined : readCursor(query.cursor);
  const matches = (event: AuditEvent, time: number): boolean =>
    (query.skill === undefined || event.skill === query.skill) &&
    (query.chat === undefined || (event.scope.kind === "chat" && event.scope.id === query.chat)) &&
    (since === undefined || time >= since) &&
    (cursor === undefined || time <= cursor.time);
  // Newest first across files; within the cursor's time, the first `skip` were shown already.
  const found: Array<{ event: AuditEvent; time: number }> = [];
  for (const file of auditFiles(join(dataFolder, AUDIT_FOLDER)).reverse()) {
    const events = readEvents(file);
    for (let index = events.length - 1; index >= 0; index -= 1) {
      const event = events[index] as AuditEvent;
      const time = Date.parse(event.time);
      if (matches(event, time)) found.push({ event, time });
    }
    // Events are appended in time order, so a file whose oldest event is before `since` ends the walk.
    const oldest = events[0];
    if (since !== undefined && oldest !== undefined && Date.parse(oldest.time) < since) break;
    if (found.length > limit + (cursor?.skip ?? 0)) break;
  }
  // Order by time, newest first; the sort is stable, so events of one time keep the log's order.
  found.sort((left, right) => right.time - left.time);
  let start = 0;
  if (cursor !== undefined) {
    let sameTime = 0;
    while (start < found.length && (found[start]?.time ?? 0) >= cursor.time && sameTime < cursor.skip) {
      if (found[start]?.time === cursor.time) sameTime += 1;
      start += 1;
    }
  }
  const page = found.slice(start, start + limit);
  const more = found.length > start + limit;
  const last = page.at(-1);
  if (!more || last === undefined) return { events: page.map((entry) => entry.event) };
  const skip =
    page.filter((entry) => entry.time === last.time).length +
    (cursor !== undefined && cursor.time === last.time ? cursor.skip : 0);
  return { events: page.map((entry) => entry.event), next: writeCursor({ time: last.time, skip }) };
}

function readEvents(file: string): AuditEvent[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    // Rotated away after the listing: the page is a snapshot of the files it listed.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new SkillgateError("io_error", "cannot read the audit log", { file }, { cause: error });
  }
  const events: AuditEvent[] = [];
  for (const line of text.split("\n")) {
    const event = parseAuditLine(line);
    if (event !== undefined && Number.isFinite(Date.parse(event.time))) events.push(event);
  }
  return events;
}

function sinceOf(since: AuditPageQuery["since"]): number | undefined {
  if (since === undefined) return undefined;
  const milliseconds = typeof since === "number" ? since : Date.parse(since);
  if (!Number.isFinite(milliseconds))
    throw new InvalidArgumentError("since", `since must be a date and time (got ${String(since)})`);
  return milliseconds;
}

function writeCursor(cursor: Cursor): string {
  return `${cursor.time.toString(36)}.${cursor.skip.toString(36)}`;
}

function readCursor(text: string): Cursor {
  const match = text.length <= MAX_CURSOR_LENGTH ? /^([0-9a-z]{1,12})\.([0-9a-z]{1,8})$/.exec(text) : null;
  const time = match === null ? Number.NaN : Number.parseInt(match[1] ?? "", 36);
  const skip = match === null ? Number.NaN : Number.parseInt(match[2] ?? "", 36);
  if (!Number.isSafeInteger(time) || !Number.isSafeInteger(skip) || skip < 1)
    throw new InvalidArgumentError("cursor", "cursor is not one this server gave (use the page's `next`)");
  return { time, skip };
}
