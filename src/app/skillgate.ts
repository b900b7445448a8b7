import { CapabilityEvents } from "../capabilities/events.js";
import { CapabilityPipeline } from "../capabilities/pipeline/invoke.js";
import { CapabilityRegistry, type ProviderFactory } from "../capabilities/registry.js";
import type { CapabilityIndex } from "../capabilities/types.js";
import type { Catalog } from "../catalog/catalog.js";
import type { SkillgateConfig } from "../config/config.js";
import { type Clock, systemClock } from "../core/clock.js";
import type { ExtensionHost } from "../extensions/host.js";
import type { Registry } from "../extensions/registry.js";
import { reportArgumentRepairs } from "../observe/argument-repair.js";
import { AuditLog } from "../observe/audit-log.js";
import { ChatLog } from "../observe/chat-log.js";
import type { AuditSink } from "../observe/events.js";
import { type Logger, silentLogger } from "../observe/logger.js";
import type { OwnerNotice } from "../observe/notifications.js";
import { ApprovalBook } from "../policy/approvals.js";
import { PolicyTable } from "../policy/decide.js";
import type { GrantStore } from "../policy/grants.js";
import { configuredRule } from "../policy/rules.js";
import type { QueueClient } from "../queue/contract.js";
import { QueueRunner } from "../queue/queue-runner.js";
import { queueClientOf } from "../queue/queue-setup.js";
import type { RunLimits, Runner } from "../runners/contract.js";
import type { PackageEnvironments } from "../runners/environments/package-environments.js";
import type { RunObserver } from "../runners/observed.js";
import type { ModeRunners } from "../runners/router.js";
import { type SkillReviews, skillReviews } from "../store/reviews.js";
import { Store } from "../store/store.js";
import { type Approver, Broker } from "../tools/broker.js";
import { chatTools, createSkillReviewContext } from "../tools/chat-tools.js";
import { registryHooks } from "../tools/extension-hooks.js";
import { type NodeDirectory, storeTools } from "../tools/store-tools.js";
import { createTurn, type Turn, type TurnOptions } from "../tools/turn.js";
import { Authoring } from "./authoring.js";
import { auditCapabilityEvents } from "./capability-audit.js";
import { type CapabilityLoad, lazyLuaProviderFactory, loadCapabilityPlane } from "./capability-plane.js";
import { type CatalogSetupOptions, createCatalogSetup } from "./catalog-setup.js";
import { runAuditOf } from "./run-audit.js";
import { scopedApprover, scopedRunner } from "./run-call-scope.js";
import { configuredLimits, packageEnvironmentsOf, runnerOf, workspaceAudited } from "./runner-setup.js";

export { withStoreSource } from "./catalog-setup.js";

/** Options of {@link createSkillgate}. Everything has a default that works on a fresh machine. */
export interface SkillgateOptions extends CatalogSetupOptions {
  /**
   * Runs scripts, replacing the router entirely (tests, embedders with their own runners).
   * Default: the router over verified snapshots, with the sandbox, the local runner for skills
   * trusted in `runners.local.trusted`, and the runners given in `runners`.
   */
  readonly runner?: Runner;
  /** Runners of execution modes, put in the default router (a sandbox, remote nodes, a queue). */
  readonly runners?: ModeRunners;
  /** Which named servers can run each node skill, for `list_skills` (given by `skillgate serve`). */
  readonly nodes?: NodeDirectory;
  /** Told about every run: streamed output and raw results (a terminal, a server's stream). */
  readonly observeRuns?: RunObserver;
  /** Caps on each run; default the configuration's `runners.limits`. */
  readonly runLimits?: RunLimits;
  /** Asks a person. Without one, every ask is declined: nobody is there to say yes. */
  readonly approve?: Approver;
  /** Where audit events go; default the audit log in the data folder; `false` for none. */
  readonly audit?: AuditSink | false;
  /** Whose chat reviews the chat tools record (default `owner`). */
  readonly owner?: string;
  /** Where information lines go (argument repairs, failed notifications); default none: a library is silent. */
  readonly logger?: Logger;
  readonly clock?: Clock;
  /**
   * The extension registry: one the program already registered tools, hooks or commands in,
   * or a new one. Files are read by `extensions.load()`, never by creating a Skillgate:
   * surfaces call `bootstrapSkillgate` (app/bootstrap.ts), which does both.
   */
  readonly extensions?: Registry;
  /**
   * The registered capability providers (docs/capabilities.md), or what gives the index in
   * force now (switched whole on a reload). Default: an empty index, and no `invoke_capability`.
   */
  readonly capabilityIndex?: CapabilityIndex | (() => CapabilityIndex);
  /** Provider factories besides the script and sampling entries' (the Lua runtime's), for {@link Skillgate.loadCapabilities}. */
  readonly capabilityFactories?: readonly ProviderFactory[];
}

/** skillgate assembled: the catalog, the store, the chat log, the broker, and turns over them. */
export interface Skillgate {
  readonly catalog: Catalog;
  /** `<data>/skills`. */
  readonly storeFolder: string;
  readonly broker: Broker;
  /** What runs scripts: the router (or the runner given in the options). */
  readonly runner: Runner;
  /** Skills' package environments: what a skill declares, the build and its environment (docs/running-scripts.md, "Packages"). */
  readonly packages: PackageEnvironments;
  /** Opens the managed store (creating its folder on first use); one instance per Skillgate. */
  openStore(): Promise<Store>;
  /** The chat database (created on first use). */
  chatLog(): ChatLog;
  /** The extensions: their registry, and load / reload / watch of their files and hooks. */
  readonly extensions: ExtensionHost;
  /** Builds a turn of a chat or job: its tools, its skill index, and `call`. */
  createTurn(options: TurnOptions): Turn;
  /**
   * Where saved drafts and applied edits are reported: live listeners (a server's events)
   * and the owner's notification channels of config.yaml (docs/notifications.md).
   */
  readonly authoring: Authoring;
  /** The context of a `/create-skill` review: candidate chats and what to do. */
  createSkillReviewContext(): Promise<string>;
  /**
   * The worker pool (docs/queue.md): the runner of `skillgate.execution: queue` (absent when
   * the options replaced it) and the configured backend's client, opened on first use.
   */
  readonly queue: { readonly runner: QueueRunner | undefined; client(): Promise<QueueClient> };
  /**
   * The one invocation pipeline every door (turn tool, MCP, AI SDK, CLI, Lua) takes to a
   * capability; its events go on the audit log and to {@link capabilityEvents}.
   */
  readonly capabilities: CapabilityPipeline;
  /**
   * The capability plane's events as they happen (`/skill/discovered`,
   * `/skill/registration/decided`, `/skill/invoked`, `/skill/completed`, `/skill/failed`, the
   * reload events), for a server's `/api/events`.
   */
  readonly capabilityEvents: CapabilityEvents;
  /** The registered providers; switched whole by {@link loadCapabilities} (and a Lua reload). */
  readonly capabilityRegistry: CapabilityRegistry;
  /** Where this Skillgate's audit events go (none when the options said `false`): hot reload writes there too. */
  readonly audit: AuditSink | undefined;
  /**
   * Discovers and decides the capabilities, builds their providers and switches the registry
   * (app/capability-plane.ts). The bootstrap calls it once; call it again after a change.
   */
  loadCapabilities(): Promise<CapabilityLoad>;
  /** Closes the chat database and the audit file, and stops the sandbox kept ahead for the next run. */
  close(): void;
}

/**
 * Wires the layers together. Nothing is written until it is needed: listing skills reads
 * the store's enabled names but never creates the store; the chat database and the audit
 * log appear with the first turn's first call.
 */
export function createSkillgate(options: SkillgateOptions = {}): Skillgate {
  const { catalog, extensions, storeFolder } = createCatalogSetup(options);
  const registry = extensions.registry;
  registry.command("reload", async () => (await extensions.reload()).join("\n"), {
    help: "read the extension files and hooks files again",
  });
  const sessions = new Set<string>();
  const data = catalog.folders.data;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  let store: Promise<Store> | undefined;
  let chatLog: ChatLog | undefined;
  let reviews: Promise<SkillReviews> | undefined;
  const openStore = (): Promise<Store> => {
    store ??= Store.open({ dataFolder: data });
    return store;
  };
  const openChatLog = (): ChatLog => {
    chatLog ??= ChatLog.open({ dataFolder: data, clock });
    return chatLog;
  };
  const grants: GrantStore = {
    grants: (scope) => openChatLog().grants(scope),
    addGrant: (scope, grant) => void openChatLog().addGrant(scope, grant),
  };
  // The audit log made here is closed with this Skillgate; one passed in belongs to its caller.
  // Its failed writes go to the logger too: a library writes nothing to stderr by itself.
  const ownAudit =
    options.audit === undefined
      ? new AuditLog({
          dataFolder: data,
          onError: (error) =>
            logger.warn("audit events are not being written", { folder: data, error: String(error) }),
        })
      : undefined;
  const audit = options.audit === false ? undefined : (options.audit ?? ownAudit);
  const broker = new Broker({
    policy: policyTableOf(() => catalog.config),
    grants,
    approvals: new ApprovalBook({ clock, ttlMs: catalog.config.policy.approvalTtlSeconds * 1000 }),
    // A call made inside withRunCallScope (a server's `skillgate run --server`) answers its own ask.
    approve: scopedApprover(options.approve),
    ...(audit !== undefined ? { audit } : {}),
    outcomes: { recordOutcome: (scope, status) => void openChatLog().recordOutcome(scope, status) },
    hooks: registryHooks(registry),
    clock,
  });
  const runAudit = runAuditOf(audit, clock);
  const queueClient = queueClientOf(data, () => catalog.config.queue);
  const queueRunner =
    options.runner === undefined && options.runners?.queue === undefined
      ? new QueueRunner({ client: queueClient.open, dataFolder: data, onFinished: runAudit.queued })
      : undefined;
  const { runner, sandbox, snapshots } = runnerOf(
    {
      ...options,
      runners: { ...(queueRunner !== undefined ? { queue: queueRunner } : {}), ...options.runners },
    },
    { data, protectedFolders: [catalog.folders.data, catalog.folders.config] },
    () => catalog.config,
    runAudit.refusal,
    runAudit.limits,
  );
  // Inside withRunCallScope a run also reports to its own caller (run-call-scope.ts).
  const auditedRunner = scopedRunner(
    workspaceAudited(runner, (request, result) => {
      runAudit.workspace(request, result);
      runAudit.node(request, result);
    }),
  );
  const authoring = new Authoring({ config: () => catalog.config.notifications, logger });
  const authored = (notice: OwnerNotice): void => void authoring.report(notice);
  const packages = packageEnvironmentsOf(data, () => catalog.config, snapshots, runAudit.refusal);
  const capabilityEvents = new CapabilityEvents(() => new Date(clock.now()));
  if (audit !== undefined) auditCapabilityEvents(capabilityEvents, audit);
  const capabilityRegistry = new CapabilityRegistry();
  const capabilities = new CapabilityPipeline({
    index: options.capabilityIndex ?? capabilityRegistry,
    ...(audit !== undefined ? { audit } : {}),
    events: capabilityEvents,
    config: () => catalog.config.capabilities,
    // Paths inside any searched skill folder, the store or skillgate's own folders are skill paths.
    skillFolders: () => [
      ...catalog.folderSources().map((source) => source.folder),
      storeFolder,
      catalog.folders.config,
      catalog.folders.data,
    ],
    now: () => clock.now(),
  });
  const chatEnvironment = {
    chatLog: openChatLog,
    reviews: () => {
      reviews ??= openStore().then((opened) => skillReviews(opened));
      return reviews;
    },
    owner: options.owner ?? "owner",
  };
  return {
    catalog,
    storeFolder,
    extensions,
    broker,
    runner: auditedRunner,
    packages,
    capabilities,
    capabilityEvents,
    capabilityRegistry,
    audit,
    loadCapabilities: () =>
      loadCapabilityPlane({
        setup: { catalog, extensions, storeFolder },
        registry: capabilityRegistry,
        runner: auditedRunner,
        events: capabilityEvents,
        factories: options.capabilityFactories ?? [lazyLuaProviderFactory(() => capabilities)],
      }),
    openStore,
    chatLog: openChatLog,
    createTurn: (turnOptions) => {
      const turn = createTurn(
        {
          discover: () => catalog.discover(),
          broker,
          runner: auditedRunner,
          packages,
          capabilities,
          runLimits: options.runLimits ?? configuredLimits(catalog.config),
          onArgumentRepair: (call) => reportArgumentRepairs(call, logger),
          extraTools: () => [
            ...storeTools({
              store: openStore,
              authored,
              ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
            }),
            ...chatTools(chatEnvironment),
          ],
          extensionTools: () => registry.tools,
          onToolClash: (name) => registry.note(`tool ${name}: left out, skillgate has a tool of that name`),
          fire: (event, payload) => registry.fire(event, payload),
        },
        { indexBudget: catalog.config.index.budget, ...turnOptions },
      );
      openChatLog().openChat(turn.scope);
      const session = `${turn.scope.kind}:${turn.scope.id}`;
      if (!sessions.has(session)) {
        sessions.add(session);
        void registry.fire("session_start", { scope: { kind: turn.scope.kind, id: turn.scope.id } });
      }
      return turn;
    },
    authoring,
    createSkillReviewContext: () => createSkillReviewContext(chatEnvironment),
    queue: { runner: queueRunner, client: queueClient.open },
    close: () => {
      queueRunner?.close();
      void queueClient.close();
      chatLog?.close();
      ownAudit?.close();
      // The sandbox started ahead for the next run is not needed any more.
      void sandbox?.close();
    },
  };
}

/** The rule table for the configuration in force, rebuilt only when the configuration changes. */
function policyTableOf(config: () => SkillgateConfig): () => PolicyTable {
  let last: { config: SkillgateConfig; table: PolicyTable } | undefined;
  return () => {
    const current = config();
    if (last?.config !== current)
      last = { config: current, table: PolicyTable.withOwnerRules(current.policy.rules.map(configuredRule)) };
    return last.table;
  };
}
