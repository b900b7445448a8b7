import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../core/clock.js";
import { systemClock } from "../core/clock.js";
import { writeFileAtomically } from "../core/durable-fs.js";
import { isPlainObject } from "../core/safe-json.js";
import { StoreArgumentError, StoreCorruptError } from "./errors.js";
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_WAIT_MS, type LockTiming, withStoreLock } from "./lock.js";

/**
 * The reviews file (docs/drafts-and-edits.md, "Reviewed chats"): `<data>/skills/skill-reviews.json`
 * records, per owner, the chats an assistant has already reviewed for skill ideas, so the next
 * review skips them unless the owner picks them. At most {@link MAX_REVIEWED_CHATS} per owner; the
 * oldest are dropped. The file is replaced whole and atomically, under the store's lock, so a CLI
 * and a server can mark chats at once without losing either's marks.
 *
 * ```json
 * { "version": 1, "owners": { "alice": [{ "chat": "c-17", "reviewed": "2026-01-02T03:04:05.000Z" }] } }
 * ```
 * Each owner's list is oldest first.
 */

/** The file's name inside `<data>/skills/`. */
export const REVIEWS_FILE = "skill-reviews.json";
/**
 * Reviewed chats kept per owner; marking more drops the oldest (docs/drafts-and-edits.md, "Reviewed chats").
 */
export const MAX_REVIEWED_CHATS = 2_000;
/** Longest owner or chat id, in characters. */
export const MAX_REVIEW_ID_LENGTH = 200;
const REVIEWS_VERSION = 1;

/** One reviewed chat. */
export interface ReviewedChat {
  readonly chat: string;
  /** When it was (last) marked reviewed, as an ISO time. */
  readonly reviewed: string;
}

/** What {@link SkillReviews.markChatsReviewed} did. */
export interface MarkResult {
  /** Chats recorded (new ones and ones marked again, which move to the newest end). */
  readonly marked: number;
  /** Oldest chats dropped to stay within {@link MAX_REVIEWED_CHATS}. */
  readonly dropped: number;
}

/** Options of {@link SkillReviews}. */
export interface ReviewsOptions {
  readonly clock?: Clock;
  /** How long a write waits for the store's lock before `store_busy`. */
  readonly lockWaitMs?: number;
  /** After how long an unrefreshed lock is taken over. */
  readonly lockStaleMs?: number;
}

/** Reviewed chats per owner, in a store folder (`store.folder`). */
export class SkillReviews {
  readonly #storeFolder: string;
  readonly #file: string;
  readonly #clock: Clock;
  readonly #timing: LockTiming;

  constructor(storeFolder: string, options: ReviewsOptions = {}) {
    this.#storeFolder = storeFolder;
    this.#file = join(storeFolder, REVIEWS_FILE);
    this.#clock = options.clock ?? systemClock;
    this.#timing = {
      staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
      waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    };
  }

  /**
   * Records `chatIds` as reviewed by `owner`, now. A chat already recorded moves to the
   * newest end with the new time; past {@link MAX_REVIEWED_CHATS} the oldest are dropped.
   */
  async markChatsReviewed(owner: string, chatIds: readonly string[]): Promise<MarkResult> {
    checkId(owner, "owner");
    if (!Array.isArray(chatIds))
      throw new StoreArgumentError("chatIds", "chatIds must be a list of chat ids");
    for (const chat of chatIds) checkId(chat, "chatIds");
    const reviewed = new Date(this.#clock.now()).toISOString();
    // The lock lives in the store folder, which may not exist yet on a fresh machine.
    await mkdir(this.#storeFolder, { recursive: true });
    return withStoreLock(this.#storeFolder, this.#timing, async () => {
      const owners = await this.#read();
      const marked = new Set(chatIds);
      const list = (owners.get(owner) ?? []).filter((entry) => !marked.has(entry.chat));
      for (const chat of marked) list.push({ chat, reviewed });
      const dropped = Math.max(0, list.length - MAX_REVIEWED_CHATS);
      owners.set(owner, list.slice(dropped));
      await writeFileAtomically(this.#file, serialise(owners));
      return { marked: marked.size, dropped };
    });
  }

  /** The chats `owner` has reviewed, oldest first; empty for an owner with none. */
  async reviewedChats(owner: string): Promise<ReviewedChat[]> {
    checkId(owner, "owner");
    return [...((await this.#read()).get(owner) ?? [])];
  }

  /** True when `owner` has reviewed `chatId`. */
  async isReviewed(owner: string, chatId: string): Promise<boolean> {
    checkId(chatId, "chatId");
    return (await this.reviewedChats(owner)).some((entry) => entry.chat === chatId);
  }

  async #read(): Promise<Map<string, ReviewedChat[]>> {
    let text: string;
    try {
      text = await readFile(this.#file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
      throw error;
    }
    return parse(text, this.#file);
  }
}

/** The reviews of a store, at its folder (`store.folder`). */
export function skillReviews(store: { readonly folder: string }, options: ReviewsOptions = {}): SkillReviews {
  return new SkillReviews(store.folder, options);
}

function checkId(value: unknown, argument: string): string {
  if (
    typeof value !== "string" ||
    value.length === 0 ||
    value.length > MAX_REVIEW_ID_LENGTH ||
    hasControl(value)
  )
    throw new StoreArgumentError(
      argument,
      `${argument} must hold ids of 1 to ${MAX_REVIEW_ID_LENGTH} characters without control characters`,
    );
  return value;
}

/** Control characters would make an id that looks like another in a listing. */
function hasControl(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Parses the file, checking every field; anything else is `store_corrupt` (a person must look). */
function parse(text: string, file: string): Map<string, ReviewedChat[]> {
  const fail = (problem: string): never => {
    throw new StoreCorruptError(file, problem);
  };
  let raw: unknown;
  try {
    // Plain JSON.parse: an own "__proto__" key becomes an ordinary property, read into a Map.
    raw = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(raw) || raw.version !== REVIEWS_VERSION || !isPlainObject(raw.owners))
    return fail(`not a version ${REVIEWS_VERSION} reviews file`);
  const owners = new Map<string, ReviewedChat[]>();
  for (const owner of Object.keys(raw.owners)) {
    const list = raw.owners[owner];
    if (!Array.isArray(list)) return fail(`the chats of ${JSON.stringify(owner)} are not a list`);
    owners.set(
      owner,
      list.map((entry: unknown) =>
        isPlainObject(entry) && typeof entry.chat === "string" && typeof entry.reviewed === "string"
          ? { chat: entry.chat, reviewed: entry.reviewed }
          : fail(`an entry of ${JSON.stringify(owner)} is not { chat, reviewed }`),
      ),
    );
  }
  return owners;
}

function serialise(owners: ReadonlyMap<string, readonly ReviewedChat[]>): string {
  const record: Record<string, readonly ReviewedChat[]> = {};
  for (const owner of [...owners.keys()].sort()) {
    // defineProperty, not assignment: an owner named "__proto__" must stay an own key.
    Object.defineProperty(record, owner, {
      value: owners.get(owner),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return `${JSON.stringify({ version: REVIEWS_VERSION, owners: record }, null, 2)}\n`;
}
