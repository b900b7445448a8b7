import { basename } from "node:path";
import type { LuaCapabilityProvider } from "../lua/lua-provider.js";
import { BoardWriter } from "./board-writer.js";
import type { GenerationRecord, GenerationState } from "./generation.js";
import { watchGenerationAnswers } from "./generation-board.js";
import {
  buildGeneration,
  codeOf,
  type GenerationRuntimeOptions,
  wideningBetween,
} from "./generation-build.js";
import type { LoadedLuaManifest, LuaManifestLoader } from "./lua-manifest-loader.js";
import type { CapabilityIndexSwitch, GenerationEvent, ReloadStep } from "./reload-events.js";
import { DebouncedFileWatch } from "./reload-watch.js";

/**
 * Hot reload of one Lua skill by generation swap, seed 004's sequence with every step
 * published as an event: file change debounce → parse manifest → validate schema and policy
 * → load new Lua state → bind restricted API → health_check → install shadow generation →
 * switch capability index → drain old generation → publish `/capability/reloaded`.
 *
 * A syntax error or a failed health check leaves the active generation serving and publishes
 * `/skill/reload_failed`. A reload that widens permissions, changes the transport or widens
 * the runtime gate stops after installing the shadow: it waits (`waiting_approval`) for the
 * owner's approve or reject through the generation board. Reloads run one at a time.
 */

export {
  type CapabilityIndexSwitch,
  type GenerationEvent,
  type IndexEntry,
  RELOAD_STEPS,
  type ReloadStep,
} from "./reload-events.js";

/** How a reloader is made. */
export interface LuaSkillReloaderOptions {
  readonly manifestPath: string;
  readonly loadManifest: LuaManifestLoader;
  readonly switchIndex: CapabilityIndexSwitch;
  readonly publish?: (event: GenerationEvent) => void;
  /** Quiet time after the last file change before reloading. */
  readonly debounceMs?: number;
  /** The state's bounds and its connections (pipeline, log). */
  readonly runtime?: GenerationRuntimeOptions;
  /** The generation board's folder: records are written there, answers read from there. */
  readonly boardFolder?: string;
  /** Told each time a generation's record changes (built, waiting, active, draining, closed, rejected). */
  readonly onRecord?: (record: GenerationRecord) => void;
}

/** How one reload ended. */
export type ReloadOutcome =
  | { readonly status: "switched"; readonly generation: number }
  | { readonly status: "waiting_approval"; readonly generation: number; readonly widening: readonly string[] }
  | {
      readonly status: "failed";
      readonly generation: number;
      readonly step: ReloadStep;
      readonly code: string;
    };

interface Built {
  readonly provider: LuaCapabilityProvider;
  readonly manifest: LoadedLuaManifest;
}

/** Default debounce. */
export const DEFAULT_RELOAD_DEBOUNCE_MS = 150;

/** Reloads one Lua skill; see the file's comment. */
export class LuaSkillReloader {
  readonly #options: LuaSkillReloaderOptions;
  #active: Built | undefined;
  #waiting: Built | undefined;
  readonly #retiring = new Set<Promise<void>>();
  readonly #records = new Map<number, GenerationRecord>();
  #next = 1;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #watch: DebouncedFileWatch;
  #stopAnswers: (() => void) | undefined;
  #stopped = false;
  #skill: string;
  readonly #board: BoardWriter | undefined;
  /** The files of the last manifest that parsed: watched while no generation is active. */
  #lastWatched: readonly string[] | undefined;

  constructor(options: LuaSkillReloaderOptions) {
    this.#options = options;
    this.#skill = basename(options.manifestPath);
    this.#board = options.boardFolder === undefined ? undefined : new BoardWriter(options.boardFolder);
    this.#watch = new DebouncedFileWatch(options.debounceMs ?? DEFAULT_RELOAD_DEBOUNCE_MS, (waitedMs) => {
      if (this.#stopped) return;
      void this.reload(waitedMs).then(() => {
        if (!this.#stopped) this.#watchFiles();
      });
    });
  }

  /** Loads the first generation, then watches the files and the owner's answers. */
  async start(options: { watch?: boolean } = {}): Promise<ReloadOutcome> {
    const outcome = await this.reload();
    if (options.watch !== false) this.#watchFiles();
    if (this.#options.boardFolder !== undefined) {
      this.#stopAnswers = await watchGenerationAnswers(
        this.#options.boardFolder,
        (answer) => {
          void (answer.answer === "approve" ? this.approve(answer.id) : this.reject(answer.id)).catch(
            () => undefined,
          );
        },
        (answer) => answer.id.startsWith(`${this.#skill}@`),
      );
    }
    return outcome;
  }

  /** The provider serving now. */
  get active(): LuaCapabilityProvider | undefined {
    return this.#active?.provider;
  }

  /** Every generation this reloader made, newest first. */
  list(): GenerationRecord[] {
    return [...this.#records.values()].sort((a, b) => b.number - a.number);
  }

  /** Runs the sequence once (after the debounce, or when asked). Serialised with other reloads. */
  reload(waitedMs?: number): Promise<ReloadOutcome> {
    const run = this.#queue.then(() => this.#reloadNow(waitedMs));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #reloadNow(waitedMs: number | undefined): Promise<ReloadOutcome> {
    const generation = this.#next++;
    const step = (name: ReloadStep, extra: { waitedMs?: number } = {}): void =>
      this.#publish({
        topic: "/skill/reload/step",
        skill: this.#skill,
        generation,
        step: name,
        at: Date.now(),
        ...extra,
      });
    let current: ReloadStep = "debounce";
    const fail = (code: string, detail: string): ReloadOutcome => {
      this.#record(generation, "rejected", "", [], `${current}: ${detail}`);
      this.#publish({
        topic: "/skill/reload_failed",
        skill: this.#skill,
        generation,
        step: current,
        code,
        detail,
      });
      return { status: "failed", generation, step: current, code };
    };
    step("debounce", waitedMs === undefined ? {} : { waitedMs });
    current = "parse_manifest";
    step(current);
    let manifest: LoadedLuaManifest;
    try {
      manifest = await this.#options.loadManifest(this.#options.manifestPath);
    } catch (error) {
      return fail(codeOf(error, "invalid_manifest"), (error as Error).message);
    }
    this.#skill = manifest.descriptor.id;
    this.#lastWatched = manifest.watchedFiles;
    current = "validate";
    step(current);
    if (manifest.descriptor.capabilities.length === 0)
      return fail("invalid_manifest", "the manifest lists no capability");
    current = "load_state";
    const built = await buildGeneration(manifest, generation, this.#options.runtime, (name) => {
      current = name;
      step(name);
    });
    if (!built.ok) return fail(built.code, built.detail);
    const provider = built.provider;
    current = "install_shadow";
    step(current);
    const next: Built = { provider, manifest };
    const widening = this.#active === undefined ? [] : wideningBetween(this.#active.manifest, manifest);
    if (widening.length > 0) {
      // One switch waits at a time: a newer widening reload replaces an older waiting one.
      if (this.#waiting !== undefined) this.#dropWaiting("replaced by a newer reload");
      this.#waiting = next;
      this.#record(generation, "waiting_approval", manifest.descriptor.manifestDigest, widening);
      this.#publish({ topic: "/skill/generation/waiting", skill: this.#skill, generation, widening });
      return { status: "waiting_approval", generation, widening };
    }
    this.#record(generation, "shadow", manifest.descriptor.manifestDigest, []);
    await this.#switchTo(next, step);
    return { status: "switched", generation };
  }

  async #switchTo(built: Built, step: (name: ReloadStep) => void): Promise<void> {
    const previous = this.#active;
    step("switch_index");
    this.#options.switchIndex(
      {
        provider: built.provider,
        capabilities: built.manifest.capabilities,
        runtimes: built.manifest.runtimes,
      },
      previous?.provider,
    );
    this.#active = built;
    this.#record(built.provider.generation, "active", built.manifest.descriptor.manifestDigest, []);
    step("drain_old");
    if (previous !== undefined) {
      const number = previous.provider.generation;
      this.#record(number, "draining", previous.manifest.descriptor.manifestDigest, []);
      // Draining does not hold up the publish: calls in flight finish on the old state meanwhile.
      const retiring = previous.provider.retire(built.provider).then(() => {
        this.#record(number, "closed", previous.manifest.descriptor.manifestDigest, []);
      });
      this.#retiring.add(retiring);
      void retiring.finally(() => this.#retiring.delete(retiring));
    }
    step("publish");
    const event = {
      skill: built.manifest.descriptor.id,
      generation: built.provider.generation,
      ...(previous === undefined ? {} : { previous: previous.provider.generation }),
      capabilities: built.manifest.capabilities,
    };
    this.#publish({ topic: "/capability/reloaded", ...event });
    this.#publish({ topic: "/skill/reloaded", ...event });
  }

  /** Switches to the generation waiting for approval. Throws when `id` is not the one waiting. */
  approve(id: string): Promise<ReloadOutcome> {
    const run = this.#queue.then(async (): Promise<ReloadOutcome> => {
      const waiting = this.#waitingFor(id);
      this.#waiting = undefined;
      const generation = waiting.provider.generation;
      const step = (name: ReloadStep): void =>
        this.#publish({
          topic: "/skill/reload/step",
          skill: this.#skill,
          generation,
          step: name,
          at: Date.now(),
        });
      await this.#switchTo(waiting, step);
      return { status: "switched", generation };
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Drops the generation waiting for approval; the active one keeps serving. */
  reject(id: string): Promise<ReloadOutcome> {
    const run = this.#queue.then(async (): Promise<ReloadOutcome> => {
      const waiting = this.#waitingFor(id);
      this.#dropWaiting("rejected by the owner");
      this.#publish({
        topic: "/skill/reload_failed",
        skill: this.#skill,
        generation: waiting.provider.generation,
        step: "switch_index",
        code: "rejected_by_owner",
        detail: "the owner rejected the widening switch",
      });
      return {
        status: "failed",
        generation: waiting.provider.generation,
        step: "switch_index",
        code: "rejected_by_owner",
      };
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #waitingFor(id: string): Built {
    const waiting = this.#waiting;
    if (waiting === undefined || `${waiting.manifest.descriptor.id}@${waiting.provider.generation}` !== id)
      throw new Error(`no generation ${id} is waiting for approval`);
    return waiting;
  }

  #dropWaiting(detail: string): void {
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    this.#waiting = undefined;
    waiting.provider.runtime.close();
    this.#record(
      waiting.provider.generation,
      "rejected",
      waiting.manifest.descriptor.manifestDigest,
      [],
      detail,
    );
  }

  #record(
    number: number,
    state: GenerationState,
    digest: string,
    widening: readonly string[],
    detail?: string,
  ): void {
    const before = this.#records.get(number);
    const record: GenerationRecord = {
      id: `${this.#skill}@${number}`,
      skill: this.#skill,
      number,
      state,
      manifestDigest: digest || before?.manifestDigest || "",
      createdAt: before?.createdAt ?? new Date().toISOString(),
      widening: widening.length > 0 ? widening : (before?.widening ?? []),
      ...(detail === undefined ? {} : { detail }),
    };
    this.#records.set(number, record);
    this.#board?.write(this.#skill, this.list());
    try {
      this.#options.onRecord?.(record);
    } catch {
      // A listener's failure is its own; the reload goes on.
    }
  }

  #publish(event: GenerationEvent): void {
    try {
      this.#options.publish?.(event);
    } catch {
      // A listener's failure is its own; the reload goes on.
    }
  }

  #watchFiles(): void {
    // With nothing active (a first load that failed), the files of the last manifest that
    // parsed are watched too, so fixing the script is seen without a restart.
    const files = this.#active?.manifest.watchedFiles ?? this.#lastWatched ?? [];
    this.#watch.watch([...new Set([this.#options.manifestPath, ...files])]);
  }

  /** Stops watching, waits for draining generations, closes every state. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#watch.close();
    this.#stopAnswers?.();
    await this.#queue;
    await Promise.all(this.#retiring);
    this.#dropWaiting("the reloader stopped");
    const active = this.#active;
    this.#active = undefined;
    if (active !== undefined) {
      await active.provider.retire(undefined);
      this.#record(active.provider.generation, "closed", active.manifest.descriptor.manifestDigest, []);
    }
    await this.#board?.settled();
  }
}
