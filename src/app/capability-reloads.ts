import { existsSync, type FSWatcher, watch } from "node:fs";
import { CAPABILITY_SOURCE } from "../capabilities/descriptors/from-manifest.js";
import type { GenerationRecord } from "../capabilities/generations/generation.js";
import type { LuaSkillReloader, ReloadOutcome } from "../capabilities/generations/hot-reload.js";
import { CapabilitySnapshot } from "../capabilities/registry.js";
import type { Logger } from "../observe/logger.js";
import { inspectSetupCapabilities } from "./capability-setup.js";
import type { Skillgate } from "./skillgate.js";

/**
 * Hot reload in a long-lived process (`skillgate serve`, `skillgate mcp`): one
 * {@link LuaSkillReloader} per Lua capability manifest the capability plane found, each wired
 * to the Skillgate's own parts, so every door of that process (a turn's `invoke_capability`,
 * a capability's own MCP tool, the AI SDK adapter, a Lua skill's `ctx.tools.invoke_agent`)
 * reaches the generation the reloader switched to:
 *
 * - the capability registry (its whole-index switch, `registrySwitch`),
 * - the one invocation pipeline (a generation's `ctx.tools.invoke_agent`),
 * - the capability events and the audit log (every step, switch and failure),
 * - the generation board in `<data>/capabilities/generations` (what `skillgate generations`,
 *   `/api/generations` and the web UI read and answer).
 *
 * Each reload decides the manifest again among all the candidates (the plane's inspection),
 * so a reloaded generation passes every check a first load does. The reloader builds its own
 * first generation from the files as they are now; the provider the plane built at start is
 * retired to it by the first switch.
 *
 * The manifest folders that exist at start are watched too: a manifest added while the process
 * runs gets its reloader, and a removed one leaves the index (calls in flight finish) and its
 * reloader stops. A manifest folder created after the start needs a restart.
 *
 * wasmoon and the reload modules are imported only when there is at least one Lua manifest.
 */

/** Options of {@link startCapabilityReloads}. */
export interface CapabilityReloadsOptions {
  /** Quiet time after the last file change before reloading (default the reloader's, 150 ms). */
  readonly debounceMs?: number;
  /** Watch the files (default true); without it, reloads run only when asked. */
  readonly watch?: boolean;
  /** Where a first generation that could not be built is reported (a warning each). */
  readonly logger?: Logger;
  /** Told each time a generation's record changes (a server publishes it to its live updates). */
  readonly onRecord?: (record: GenerationRecord) => void;
}

/** The running reloaders of one process. */
export interface CapabilityReloads {
  /** The manifests reloaded now: those found at start, and those added since. */
  manifests(): string[];
  /** Every generation the reloaders made, by skill, newest first within a skill. */
  list(): GenerationRecord[];
  /** Reloads one manifest now (as a file change would, without the debounce). */
  reload(manifestPath: string): Promise<ReloadOutcome>;
  /** Stops every reloader: no more watching; draining generations finish; states close. */
  close(): Promise<void>;
}

/** The parts of a Skillgate the reloaders are wired to. */
export type ReloadableSkillgate = Pick<
  Skillgate,
  | "catalog"
  | "extensions"
  | "storeFolder"
  | "capabilityRegistry"
  | "capabilities"
  | "capabilityEvents"
  | "audit"
>;

/**
 * Starts a reloader for each Lua capability manifest the plane's inspection finds (registered
 * or not: one rejected at start is reloaded once its files are fixed). Never throws for a
 * manifest: a first generation that fails is on the board and logged, and its files are
 * watched like any other's.
 */
export async function startCapabilityReloads(
  skillgate: ReloadableSkillgate,
  options: CapabilityReloadsOptions = {},
): Promise<CapabilityReloads> {
  const setup = {
    catalog: skillgate.catalog,
    extensions: skillgate.extensions,
    storeFolder: skillgate.storeFolder,
  };
  const inspect = () => inspectSetupCapabilities(setup);
  const found = inspect();
  const watch = options.watch !== false;
  const folders = found.manifestFolders
    .filter((folder) => folder.kind === "capabilities" && folder.exists)
    .map((folder) => folder.folder);
  if (luaManifestsOf(found).length === 0 && (!watch || folders.length === 0)) return idleReloads();
  const reloaders = new Map<string, LuaSkillReloader>();
  let made: Promise<(manifestPath: string) => LuaSkillReloader> | undefined;
  const add = async (manifestPath: string): Promise<void> => {
    made ??= reloaderMaker(skillgate, inspect, options);
    const reloader = (await made)(manifestPath);
    reloaders.set(manifestPath, reloader);
    const outcome = await reloader.start({ watch });
    if (outcome.status === "failed")
      options.logger?.warn("Lua skill's first generation not built", {
        manifest: manifestPath,
        step: outcome.step,
        code: outcome.code,
      });
  };
  const remove = async (manifestPath: string): Promise<void> => {
    const reloader = reloaders.get(manifestPath);
    if (reloader === undefined) return;
    reloaders.delete(manifestPath);
    // Out of the index first, so no call is routed to a generation about to close.
    const active = reloader.active;
    const registry = skillgate.capabilityRegistry;
    if (active !== undefined)
      registry.switch(
        new CapabilitySnapshot(
          registry.snapshot.entries.filter((entry) => entry.provider !== active),
          skillgate.catalog.config.capabilities,
        ),
      );
    await reloader.stop();
  };
  await Promise.all(luaManifestsOf(found).map(add));
  // A manifest added or removed while running: the folders' notifications, then the
  // candidates again. Rescans run one at a time.
  let rescans: Promise<void> = Promise.resolve();
  const rescan = (): void => {
    rescans = rescans.then(async () => {
      const now = new Set(luaManifestsOf(inspect()));
      await Promise.all([
        ...[...now].filter((path) => !reloaders.has(path)).map(add),
        ...[...reloaders.keys()].filter((path) => !now.has(path) && !existsSync(path)).map(remove),
      ]);
    });
    rescans = rescans.catch(() => undefined);
  };
  const stopWatching = watch ? watchFolders(folders, options.debounceMs ?? 150, rescan) : () => undefined;
  let closing: Promise<void> | undefined;
  return {
    manifests: () => [...reloaders.keys()],
    list: () =>
      [...reloaders.values()]
        .flatMap((reloader) => reloader.list())
        .sort((a, b) => a.skill.localeCompare(b.skill) || b.number - a.number),
    reload: (manifestPath) => {
      const reloader = reloaders.get(manifestPath);
      if (reloader === undefined) return Promise.reject(new Error(`${manifestPath} is not reloaded here`));
      return reloader.reload();
    },
    close: () => {
      closing ??= (async () => {
        stopWatching();
        await rescans;
        await Promise.all([...reloaders.values()].map((reloader) => reloader.stop()));
      })();
      return closing;
    },
  };
}

/**
 * What makes one manifest's reloader, wired to the Skillgate: the reload modules (and with
 * them wasmoon) are imported here, on the first Lua manifest.
 */
async function reloaderMaker(
  skillgate: ReloadableSkillgate,
  inspect: () => ReturnType<typeof inspectSetupCapabilities>,
  options: CapabilityReloadsOptions,
): Promise<(manifestPath: string) => LuaSkillReloader> {
  const [
    { LuaSkillReloader },
    { inspectionLoader },
    { registrySwitch },
    { generationEventForwarder },
    { generationsFolder },
    { pipelineInvoker },
  ] = await Promise.all([
    import("../capabilities/generations/hot-reload.js"),
    import("../capabilities/generations/lua-manifest-loader.js"),
    import("../capabilities/generations/registry-switch.js"),
    import("../capabilities/generations/reload-audit.js"),
    import("../capabilities/generations/generation-board.js"),
    import("../capabilities/lua/lua-pipeline.js"),
  ]);
  const publish = generationEventForwarder({
    events: skillgate.capabilityEvents,
    ...(skillgate.audit !== undefined ? { audit: skillgate.audit } : {}),
  });
  const loadManifest = inspectionLoader(inspect);
  const switchIndex = registrySwitch(
    skillgate.capabilityRegistry,
    () => skillgate.catalog.config.capabilities,
  );
  const boardFolder = generationsFolder(skillgate.catalog.folders.data);
  const invokeAgent = pipelineInvoker(() => skillgate.capabilities);
  return (manifestPath) =>
    new LuaSkillReloader({
      manifestPath,
      loadManifest,
      switchIndex,
      publish,
      boardFolder,
      runtime: { invokeAgent },
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      ...(options.onRecord !== undefined ? { onRecord: options.onRecord } : {}),
    });
}

/** `fs.watch` on each folder, `onSettled` once they have been quiet for `debounceMs`; returns what stops it. */
function watchFolders(folders: readonly string[], debounceMs: number, onSettled: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onSettled();
    }, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const folder of folders) {
    try {
      watchers.push(watch(folder, changed));
    } catch {
      // A folder that vanished since the inspection is watched again after a restart.
    }
  }
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

/**
 * The Lua capability manifests among the candidates (`<config>/capabilities/*.yaml`, and a
 * project's with the opt-in), each once, in discovery order: a manifest that cannot be read
 * now is among them, so fixing it is seen.
 */
function luaManifestsOf(inspection: ReturnType<typeof inspectSetupCapabilities>): string[] {
  const paths = inspection.decisions
    .filter((item) => item.candidate.source === CAPABILITY_SOURCE)
    .map((item) => item.candidate.location);
  return [...new Set(paths)];
}

/** Reloads of a process without Lua manifests: nothing to watch. */
function idleReloads(): CapabilityReloads {
  return {
    manifests: () => [],
    list: () => [],
    reload: (manifestPath) => Promise.reject(new Error(`${manifestPath} is not reloaded here`)),
    close: () => Promise.resolve(),
  };
}
