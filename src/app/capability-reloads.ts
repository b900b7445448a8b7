import { CAPABILITY_SOURCE } from "../capabilities/descriptors/from-manifest.js";
import type { GenerationRecord } from "../capabilities/generations/generation.js";
import type { LuaSkillReloader, ReloadOutcome } from "../capabilities/generations/hot-reload.js";
import type { Logger } from "../observe/logger.js";
import { inspectSetupCapabilities } from "./capability-setup.js";
import type { Skillgate } from "./skillgate.js";

/**
 * Hot reload in a long-lived process (`skillgate serve`, `skillgate mcp`): one
 * {@link LuaSkillReloader} per Lua capability manifest the capability plane found, each wired
 * to the Skillgate's own parts, so every door (a turn's `invoke_capability`, MCP, the CLI's
 * `invoke` against the same process) reaches the generation the reloader switched to:
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
 * retired to it by the first switch. Manifests are those found at start: a manifest added
 * while the process runs is picked up by a restart, and a removed one keeps its last
 * generation serving until then (its reloader reports `manifest_removed`).
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
  /** The manifests reloaded, as found at start. */
  readonly manifests: readonly string[];
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
  const manifests = luaManifestsOf(inspect());
  if (manifests.length === 0) return idleReloads();
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
  const reloaders = new Map<string, LuaSkillReloader>();
  for (const manifestPath of manifests)
    reloaders.set(
      manifestPath,
      new LuaSkillReloader({
        manifestPath,
        loadManifest,
        switchIndex,
        publish,
        boardFolder,
        runtime: { invokeAgent },
        ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
        ...(options.onRecord !== undefined ? { onRecord: options.onRecord } : {}),
      }),
    );
  const watch = options.watch !== false;
  await Promise.all(
    [...reloaders].map(async ([manifestPath, reloader]) => {
      const outcome = await reloader.start({ watch });
      if (outcome.status === "failed")
        options.logger?.warn("Lua skill's first generation not built", {
          manifest: manifestPath,
          step: outcome.step,
          code: outcome.code,
        });
    }),
  );
  let closing: Promise<void> | undefined;
  return {
    manifests,
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
      closing ??= Promise.all([...reloaders.values()].map((reloader) => reloader.stop())).then(
        () => undefined,
      );
      return closing;
    },
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
    manifests: [],
    list: () => [],
    reload: (manifestPath) => Promise.reject(new Error(`${manifestPath} is not reloaded here`)),
    close: () => Promise.resolve(),
  };
}
