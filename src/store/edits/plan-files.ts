import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { makeFolder, removeFileDurably, TEMP_PREFIX, writeFileAtomically } from "../../core/durable-fs.js";
import { StoreCorruptError, StoreError } from "../errors.js";
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_WAIT_MS, type LockTiming, withStoreLock } from "../lock.js";
import type { EditPlan } from "./edit-plan-types.js";
import { parseStoredPlan } from "./plan-format.js";

/**
 * Where edit plans live: `<data>/skills/.plans/<id>.json`, one file per plan, each written
 * atomically, so a CLI and a server see the same plans. Adding, taking (apply) and
 * removing a plan run under the plans' own lock (`.plans/.lock`), never under the store's:
 * applying a plan takes the store's lock inside it, and nothing takes them the other way.
 */

/** The plans folder's name inside `<data>/skills/`. */
export const PLANS_FOLDER = ".plans";
/** How long a plan waits for the owner (docs/drafts-and-edits.md, "Plans are kept"): 2 hours. */
export const PLAN_LIFETIME_MS = 2 * 60 * 60 * 1000;
/**
 * Plans held at once (docs/drafts-and-edits.md, "Plans are kept"). A new plan past it is refused
 * (`too_many_plans`) rather than dropping the oldest: the owner may be reading that one.
 */
export const MAX_PLANS = 200;

const PLAN_ID = /^[0-9a-f]{32}$/;

/** Refusals that applying the same plan again would meet again: the plan is removed. */
const LASTING_REFUSALS: ReadonlySet<string> = new Set([
  "skill_changed",
  "not_found",
  "builtin_read_only",
  "skill_invalid",
  "script_check_failed",
  "draft_locked",
  "too_many_files",
  "file_too_large",
  "skill_too_large",
  "too_many_domains",
  "path_not_allowed",
  "invalid_argument",
]);

/** No plan with that id (never made, applied, rejected, or refused at apply). */
export class PlanNotFoundError extends StoreError<{ id: string }> {
  constructor(id: string) {
    super("plan_not_found", `no edit plan ${JSON.stringify(id)}: it was applied, rejected or never made`, {
      id,
    });
  }
}

/** The plan waited longer than {@link PLAN_LIFETIME_MS}; it is removed. */
export class PlanExpiredError extends StoreError<{ id: string; expiresAt: string }> {
  constructor(id: string, expiresAt: string) {
    super("plan_expired", `edit plan ${id} expired at ${expiresAt}; ask for the edit again`, {
      id,
      expiresAt,
    });
  }
}

/** {@link MAX_PLANS} plans are waiting; the owner must approve, reject or let some expire. */
export class TooManyPlansError extends StoreError<{ count: number; limit: number }> {
  constructor(count: number, limit: number) {
    super(
      "too_many_plans",
      `HOST: ${count} edit plans are waiting for the owner; the limit is ${limit}. Try again after the owner reviews them.`,
      { count, limit },
    );
  }
}

/** The plan files of one store. */
export class PlanFiles {
  readonly folder: string;
  readonly #timing: LockTiming;

  constructor(storeFolder: string, timing: Partial<LockTiming> = {}) {
    this.folder = join(storeFolder, PLANS_FOLDER);
    this.#timing = {
      staleMs: timing.staleMs ?? DEFAULT_LOCK_STALE_MS,
      waitMs: timing.waitMs ?? DEFAULT_LOCK_WAIT_MS,
    };
  }

  /** Adds a plan after removing expired ones; refuses past {@link MAX_PLANS}. */
  async add(plan: EditPlan, now: number): Promise<void> {
    await this.#locked(async () => {
      const live = await this.#purge(now);
      if (live.length >= MAX_PLANS) throw new TooManyPlansError(live.length, MAX_PLANS);
      await writeFileAtomically(this.#file(plan.id), `${JSON.stringify(plan, null, 2)}\n`);
    });
  }

  /** Every plan that has not expired, oldest first. Reads only. */
  async list(now: number): Promise<EditPlan[]> {
    const plans: EditPlan[] = [];
    for (const id of await this.#ids()) {
      const plan = await this.#read(id).catch(() => undefined);
      if (plan !== undefined && Date.parse(plan.expiresAt) > now) plans.push(plan);
    }
    return plans.sort((left, right) =>
      left.createdAt < right.createdAt ? -1 : left.createdAt > right.createdAt ? 1 : 0,
    );
  }

  /** One plan; `plan_not_found`, or `plan_expired` for one past its time. Reads only. */
  async get(id: string, now: number): Promise<EditPlan> {
    const plan = await this.#read(checkId(id));
    if (plan === undefined) throw new PlanNotFoundError(id);
    if (Date.parse(plan.expiresAt) <= now) throw new PlanExpiredError(id, plan.expiresAt);
    return plan;
  }

  /**
   * Takes a plan for `work` under the plans' lock, so one plan is applied at most once. The
   * plan is removed when `work` succeeds, and when it fails for a reason that will not go
   * away (the skill moved, the content is refused); it stays when the store was busy.
   * An expired plan is removed and refused.
   */
  async take<Result>(id: string, now: number, work: (plan: EditPlan) => Promise<Result>): Promise<Result> {
    checkId(id);
    return this.#locked(async () => {
      const plan = await this.#read(id);
      if (plan === undefined) throw new PlanNotFoundError(id);
      if (Date.parse(plan.expiresAt) <= now) {
        await removeFileDurably(this.#file(id));
        throw new PlanExpiredError(id, plan.expiresAt);
      }
      try {
        const result = await work(plan);
        await removeFileDurably(this.#file(id));
        return result;
      } catch (error) {
        if (error instanceof StoreError && LASTING_REFUSALS.has(error.code))
          await removeFileDurably(this.#file(id));
        throw error;
      }
    });
  }

  /** Removes a plan (rejected by the owner); `plan_not_found` when there is none. An expired one is removed quietly. */
  async remove(id: string): Promise<EditPlan> {
    checkId(id);
    return this.#locked(async () => {
      const plan = await this.#read(id);
      if (plan === undefined) throw new PlanNotFoundError(id);
      await removeFileDurably(this.#file(id));
      return plan;
    });
  }

  async #locked<Result>(work: () => Promise<Result>): Promise<Result> {
    await makeFolder(this.folder);
    return withStoreLock(this.folder, this.#timing, async () => {
      // Under the lock no other writer is mid-write, so any temporary file is a leftover.
      for (const name of await readdir(this.folder))
        if (name.startsWith(TEMP_PREFIX)) await rm(join(this.folder, name), { force: true });
      return work();
    });
  }

  /**
   * Removes expired plans and returns the ids of the rest. Only `expiresAt` is read here:
   * a plan file that cannot be read still holds its slot until a person looks at it.
   */
  async #purge(now: number): Promise<string[]> {
    const live: string[] = [];
    for (const id of await this.#ids()) {
      const expiresAt = await readFile(this.#file(id), "utf8")
        .then((text) => Date.parse((JSON.parse(text) as { expiresAt?: unknown }).expiresAt as string))
        .catch(() => Number.NaN);
      if (Number.isNaN(expiresAt) || expiresAt > now) live.push(id);
      else await removeFileDurably(this.#file(id));
    }
    return live;
  }

  async #ids(): Promise<string[]> {
    try {
      return (await readdir(this.folder))
        .filter((name) => name.endsWith(".json"))
        .map((name) => name.slice(0, -".json".length))
        .filter((id) => PLAN_ID.test(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  async #read(id: string): Promise<EditPlan | undefined> {
    let text: string;
    try {
      text = await readFile(this.#file(id), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      return parseStoredPlan(JSON.parse(text), id);
    } catch (error) {
      throw new StoreCorruptError(this.#file(id), error instanceof Error ? error.message : String(error));
    }
  }

  #file(id: string): string {
    return join(this.folder, `${id}.json`);
  }
}

/** A plan id is 32 lower-case hex digits; anything else is not a plan (and never a path). */
function checkId(id: unknown): string {
  if (typeof id !== "string" || !PLAN_ID.test(id)) throw new PlanNotFoundError(String(id));
  return id;
}
