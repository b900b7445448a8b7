import { describeError, SkillgateError } from "../../core/errors.js";
import type { Logger } from "../../observe/logger.js";
import { type Heartbeat, SKILL_SYNC_INTERVAL_MS } from "../protocol.js";
import { AgentChannelClient, type Backoff } from "./agent-channel-client.js";
import { type AgentFeatures, detectAgentFeatures } from "./agent-features.js";
import { AgentFiles, type AgentIdentity } from "./agent-files.js";
import { createAgentRunner } from "./agent-runner.js";
import { ControllerClient } from "./controller-client.js";
import { enrolAgent } from "./enrolment.js";
import { HeartbeatLoop } from "./heartbeat.js";
import { type AgentRunMode, RunExecutor } from "./run-executor.js";
import { SkillCache } from "./skill-cache.js";
import { SkillSync, type SyncReport } from "./skill-sync.js";

/** Options of {@link startNodeAgent}. */
export interface NodeAgentOptions {
  /** The controller's origin, `http(s)://host:port` (where `skillgate serve` listens). */
  readonly controller: string;
  /** This node's name, as the owner added it (`skillgate nodes add NAME`). */
  readonly name: string;
  /** The one-time enrolment token; used only while this agent holds no credential yet. */
  readonly enrolToken?: string;
  /** skillgate's data folder: the agent keeps everything in `<data>/node-agent/`. */
  readonly dataFolder: string;
  /** How scripts run here (default `sandbox`; `.cs` always through `dotnet run`). */
  readonly mode?: AgentRunMode;
  /** One line per event; the CLI passes stderr. */
  readonly logger: Logger;
  /** Reported in the heartbeat. */
  readonly agentVersion: string;
  /** Between heartbeats (default 15 s). */
  readonly heartbeatMs?: number;
  /** Between SkillSyncs (default 60 s). */
  readonly syncMs?: number;
  /** The channel's reconnection delays. */
  readonly backoff?: Backoff;
}

/** A running agent. */
export interface RunningNodeAgent {
  readonly name: string;
  /** `<data>/node-agent`. */
  readonly folder: string;
  /** Runs SkillSync now (or joins the one running). */
  sync(): Promise<SyncReport | undefined>;
  /** Stops gracefully: runs in flight are stopped and reported, then the channel is closed. */
  stop(): Promise<void>;
}

/**
 * Starts `skillgate node-agent` (docs/nodes.md, "Running a node agent"): enrols on the first
 * start (or reuses the stored credential), looks at this host's sandbox and `dotnet`, syncs
 * its skills, then keeps three things going until {@link RunningNodeAgent.stop}: the run
 * channel (outbound, reopened with backoff), the heartbeat (every 15 s and on change) and
 * SkillSync (every minute, and whenever the controller sends `sync-skills`).
 *
 * @throws SkillgateError `node_not_enrolled` (no credential and no token), `node_name_mismatch`
 *   (the stored credential is another node's), and enrolment's own errors
 */
export async function startNodeAgent(options: NodeAgentOptions): Promise<RunningNodeAgent> {
  const { logger } = options;
  const files = new AgentFiles(options.dataFolder);
  const identity = await identityOf(options, files);
  const folder = files.folder;
  const cache = new SkillCache({ dataFolder: folder });
  const client = new ControllerClient({ controllerUrl: options.controller, credential: identity.credential });
  const skillSync = new SkillSync({
    node: identity.name,
    controllerPublicKey: identity.controllerPublicKey,
    transport: client,
    cache,
  });
  const runner = createAgentRunner(folder);
  const features: AgentFeatures = await detectAgentFeatures();
  logger.info("node agent starting", {
    node: identity.name,
    controller: options.controller,
    features: features.features.join(","),
    ...(features.sandbox.available ? {} : { sandbox: features.sandbox.reason ?? "unavailable" }),
  });
  let heartbeat: HeartbeatLoop | undefined;
  let stopped = false;
  const sync = async (why: string): Promise<SyncReport | undefined> => {
    if (stopped) return undefined;
    try {
      const report = await skillSync.sync();
      logSync(logger, why, report);
      heartbeat?.changed();
      return report;
    } catch (error) {
      logger.warn("sync failed", { why, error: describeError(error) });
      return undefined;
    }
  };
  const channel: AgentChannelClient = new AgentChannelClient({
    controller: options.controller,
    credential: identity.credential,
    logger,
    ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
    onState: (connected) => {
      // A reopened channel may follow a controller restart: tell it at once what this node holds.
      if (connected) heartbeat?.beat();
    },
    onMessage: (message) => {
      switch (message.type) {
        case "run":
          void executor.handle(message);
          return;
        case "cancel":
          logger.info("run cancelled by the controller", { requestId: String(message.requestId) });
          executor.cancel(message.requestId);
          return;
        case "sync-skills":
          void sync("sync-skills");
          return;
        case "welcome":
          return;
      }
    },
  });
  const executor = new RunExecutor({
    agentFolder: folder,
    skills: cache,
    sync: async () => {
      await sync("run of a skill not held");
    },
    runner: runner.router,
    send: (message) => void channel.send(message),
    logger,
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    // The controller sees runs start and end on the channel; the beat that lists them can wait a moment.
    onRunsChanged: () => heartbeat?.changedSoon(),
    // A dropped copy leaves the held set: say so at once, and fetch it again now.
    onCopyDropped: () => {
      heartbeat?.changed();
      void sync("a changed copy was dropped");
    },
  });
  const current = (): Heartbeat => ({
    features: features.features,
    sandbox: features.sandbox,
    os: features.os,
    arch: features.arch,
    skills: Object.fromEntries(cache.held()),
    runs: executor.inFlight,
    agentVersion: options.agentVersion,
  });
  heartbeat = new HeartbeatLoop({
    send: (beat) => client.heartbeat(beat),
    current,
    logger,
    ...(options.heartbeatMs !== undefined ? { intervalMs: options.heartbeatMs } : {}),
    onResponse: (response) => {
      // The controller answers with a higher sequence than this node's last once its skills changed.
      if (response.manifestSequence > cache.lastSequence()) void sync("heartbeat");
    },
  });
  await sync("start");
  heartbeat.start();
  channel.start();
  const syncTimer = setInterval(() => void sync("every minute"), options.syncMs ?? SKILL_SYNC_INTERVAL_MS);
  syncTimer.unref();
  return {
    name: identity.name,
    folder,
    sync: () => sync("asked"),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(syncTimer);
      logger.info("node agent stopping", { runs: executor.inFlight.length });
      // Runs end first, so their run-ended (interrupted) still goes up the open channel.
      await executor.close();
      await heartbeat?.stop();
      await channel.close();
      await runner.close();
      logger.info("node agent stopped");
    },
  };
}

/**
 * The stored credential, or a new one from enrolment. A stored credential wins over a
 * token (a service's command line may keep `--enrol` after the first start): remove
 * `<data>/node-agent/credential` to enrol again.
 */
async function identityOf(options: NodeAgentOptions, files: AgentFiles): Promise<AgentIdentity> {
  const stored = files.identity();
  if (stored !== undefined) {
    if (stored.name !== options.name)
      throw new SkillgateError(
        "node_name_mismatch",
        `this agent's data folder holds the credential of node ${stored.name}, not ${options.name}; start it with --name ${stored.name}, or give it a data folder of its own`,
        { stored: stored.name, name: options.name },
      );
    if (options.enrolToken !== undefined)
      options.logger.info("already enrolled: the stored credential is used and --enrol is ignored", {
        node: stored.name,
      });
    return stored;
  }
  if (options.enrolToken === undefined)
    throw new SkillgateError(
      "node_not_enrolled",
      `this agent is not enrolled yet: run skillgate nodes add ${options.name} on the controller and start the agent with --enrol TOKEN`,
      { name: options.name },
    );
  const identity = await enrolAgent({
    controllerUrl: options.controller,
    name: options.name,
    token: options.enrolToken,
    files,
  });
  options.logger.info("enrolled", { node: identity.name, folder: files.folder });
  return identity;
}

function logSync(logger: Logger, why: string, report: SyncReport): void {
  if (report.manifestError !== undefined) {
    logger.warn("sync refused the manifest; the skills held are kept", {
      why,
      code: report.manifestError.code,
      error: report.manifestError.message,
    });
    return;
  }
  for (const failure of report.failed)
    logger.warn("sync: a package did not install; the skills held are kept", {
      skill: `${failure.name}@${failure.hash.slice(0, 8)}`,
      code: failure.code,
    });
  if (report.installed.length > 0 || report.removed.length > 0)
    logger.info("skills synced", {
      why,
      installed: report.installed.map(shortKey).join(",") || "none",
      removed: report.removed.map(shortKey).join(",") || "none",
      sequence: report.sequence ?? 0,
    });
}

/** `name@hash` as `name@hash8`, for log lines. */
function shortKey(key: string): string {
  const at = key.lastIndexOf("@");
  return at === -1 ? key : key.slice(0, at + 9);
}
