import type { NodesConfig } from "../../config/nodes-config.js";
import { skillAllowedOn } from "../../config/nodes-config.js";
import { type Clock, systemClock } from "../../core/clock.js";
import type { ExecutionMode } from "../../skill/governance.js";
import type { Skill } from "../../skill/skill.js";
import type { SignedSkillsManifest } from "../protocol.js";
import { LiveStateWriter } from "./live-state-file.js";
import { NodeError } from "./node-errors.js";
import { NodeHub, type NodeState } from "./node-hub.js";
import { type NodeEntry, NodeRegistry } from "./node-registry.js";
import { NodeRunner } from "./node-runner.js";
import type { NodeRole } from "./registry-file.js";
import { SkillHashes } from "./skill-hashes.js";

/** One skill a manifest lists, as the package builder needs it: its verified folder is hashed again there. */
export interface ManifestSkillInput {
  readonly name: string;
  readonly hash: string;
  readonly folder: string;
}

/**
 * What the controller needs of the package builder and the manifest signer (src/nodes/packages/,
 * src/nodes/manifest/): the key agents pin, a signed manifest of given skills (packages built
 * once per `name@hash`), and a package's bytes.
 */
export interface NodePackaging {
  /** The controller's Ed25519 public key (SPKI, PEM), made on first use. */
  publicKeyPem(): Promise<string>;
  /** Builds (or reuses) each skill's package and signs a manifest of them for `node`. */
  buildManifest(node: string, skills: readonly ManifestSkillInput[]): Promise<SignedSkillsManifest>;
  /** The bytes of the package of `name@hash`, or undefined when none was built. */
  readPackage(name: string, hash: string): Promise<Uint8Array | undefined>;
  /** The last sequence issued (0 before the first). */
  currentSequence(): number;
  /** Removes every package whose `name@hash` is not in `keep` (what current manifests list). */
  prune?(keep: ReadonlySet<string>): Promise<void>;
}

/** What the controller reads of the catalog at each use: the offered skills and the configuration's scope. */
export interface ControllerCatalog {
  /** The skills the catalog offers now (registered). */
  skills(): readonly Skill[];
  nodesConfig(): NodesConfig;
}

/** Which nodes may run a skill, and which of them are online: what `list_skills` shows. */
export interface SkillNodes {
  readonly scope: readonly string[];
  readonly online: readonly string[];
}

/** Options of {@link NodeController}. */
export interface NodeControllerOptions {
  readonly dataFolder: string;
  readonly clock?: Clock;
  /** The hub's tick period (`false`: tests tick by hand). */
  readonly tickMs?: number | false;
  readonly onChange?: (name: string) => void;
  /** How long a run waits for a node to sync a skill it lacks. */
  readonly syncWaitMs?: number;
}

/** The modes each role's manifest carries. */
const MODES_OF: Readonly<Record<NodeRole, readonly ExecutionMode[]>> = {
  node: ["node", "sandbox"],
  worker: ["queue"],
};

/**
 * The controller side of named servers inside `skillgate serve` (docs/nodes.md, "The
 * controller"): the registry, the hub of live channels, the NodeRunner, and what each node's
 * manifest lists. The catalog and the packaging are attached once the server's Skillgate
 * exists ({@link attach}), since the runner must be handed to that Skillgate first.
 */
export class NodeController {
  readonly registry: NodeRegistry;
  readonly hub: NodeHub;
  readonly runner: NodeRunner;
  readonly #live: LiveStateWriter;
  readonly #hashes: SkillHashes;
  #catalog: ControllerCatalog | undefined;
  #packaging: NodePackaging | undefined;
  /** Per node: the sequence of the last manifest issued to it, and which `name@hash` it listed. */
  readonly #issued = new Map<string, { readonly sequence: number; readonly listed: string }>();
  /** Per node: what was last told to `onChange` listeners. */
  readonly #published = new Map<string, string>();

  constructor(options: NodeControllerOptions) {
    this.registry = new NodeRegistry({
      dataFolder: options.dataFolder,
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    });
    // File stamps are compared with the real time, whatever clock the hub runs on.
    this.#hashes = new SkillHashes();
    const onChange = options.onChange;
    this.hub = new NodeHub({
      registry: this.registry,
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
      ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
      onChange: (name) => {
        this.#live.changed();
        // A heartbeat that changes nothing a person sees is not an event: pages would refetch every 15 s per node.
        const state = this.hub.state(name);
        const seen = state === undefined ? "gone" : signatureOf(state);
        if (this.#published.get(name) === seen) return;
        this.#published.set(name, seen);
        onChange?.(name);
      },
      onTick: () => this.#live.refresh(),
    });
    // Another process's `skillgate nodes list` reads the live state from this file.
    this.#live = new LiveStateWriter(options.dataFolder, options.clock ?? systemClock, () =>
      this.hub.states(),
    );
    this.runner = new NodeRunner({
      hub: this.hub,
      allowedOn: (skill, node) => {
        const config = this.#catalog?.nodesConfig();
        return config === undefined || skillAllowedOn(config, skill, node);
      },
      ...(options.syncWaitMs !== undefined ? { syncWaitMs: options.syncWaitMs } : {}),
    });
  }

  /** The server's URL, once it listens: written to the live-state file for `skillgate nodes add`. */
  setControllerUrl(url: string): void {
    this.#live.url = url;
    // Written now, not coalesced: a CLI started right after the server reads the URL from it.
    this.#live.write(true);
  }

  /** Gives the controller the server's catalog and the packaging; until then manifests are refused. */
  attach(catalog: ControllerCatalog, packaging: NodePackaging): void {
    this.#catalog = catalog;
    this.#packaging = packaging;
  }

  /** The skills `node`'s manifest lists now: offered, of its role's modes, in scope, hashed now. */
  skillsFor(node: NodeEntry): ManifestSkillInput[] {
    const catalog = this.#catalog;
    if (catalog === undefined) return [];
    const config = catalog.nodesConfig();
    const modes = MODES_OF[node.role];
    const chosen: ManifestSkillInput[] = [];
    for (const skill of catalog.skills()) {
      if (skill.directory === undefined || !modes.includes(skill.governance.execution)) continue;
      if (!skillAllowedOn(config, skill.name, node.name)) continue;
      const hash = this.#hashes.hashOf(skill.directory);
      if (hash !== undefined) chosen.push({ name: skill.name, hash, folder: skill.directory });
    }
    return chosen.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The controller's public key, for an enrolment answer. */
  publicKeyPem(): Promise<string> {
    return this.#requirePackaging().publicKeyPem();
  }

  /**
   * A freshly signed manifest for `node`. Afterwards the packages no node's manifest lists
   * any more are pruned (best effort).
   */
  async manifest(node: NodeEntry): Promise<SignedSkillsManifest> {
    const packaging = this.#requirePackaging();
    const skills = this.skillsFor(node);
    const signed = await packaging.buildManifest(node.name, skills);
    this.#issued.set(node.name, { sequence: sequenceOf(signed), listed: listedKey(skills) });
    void this.#prune(packaging).catch(() => undefined);
    return signed;
  }

  /**
   * The package of `name@hash` for `node`: only when its manifest lists that skill at that
   * hash now; otherwise `node_package_refused` with reason `package_not_found` (out of its
   * scope, another node's, never built) or `package_stale` (the store's hash moved on).
   */
  async package(node: NodeEntry, name: string, hash: string): Promise<Uint8Array> {
    const listed = this.skillsFor(node).find((skill) => skill.name === name);
    if (listed === undefined)
      throw new NodeError("node_package_refused", `no package ${name} is in the manifest of ${node.name}`, {
        reason: "package_not_found",
        name,
      });
    if (listed.hash !== hash)
      throw new NodeError(
        "node_package_refused",
        `the package ${name}@${hash.slice(0, 8)} is stale: the skill has changed`,
        {
          reason: "package_stale",
          name,
        },
      );
    const bytes = await this.#requirePackaging().readPackage(name, hash);
    if (bytes === undefined)
      throw new NodeError(
        "node_package_refused",
        `the package ${name}@${hash.slice(0, 8)} was not built; fetch the manifest first`,
        {
          reason: "package_not_found",
          name,
        },
      );
    return bytes;
  }

  /**
   * The sequence a heartbeat of `node` is answered with: the one last issued to it while its
   * skills are unchanged since (the agent is up to date), or one above the last issued
   * anywhere when they changed (the agent is behind and syncs).
   */
  manifestSequence(node: NodeEntry): number {
    const current = this.#packaging?.currentSequence() ?? 0;
    const issued = this.#issued.get(node.name);
    if (issued !== undefined && issued.listed === listedKey(this.skillsFor(node))) return issued.sequence;
    return current + 1;
  }

  /**
   * Which (role `node`) nodes may run `skill`, and which of them are online. A registry that
   * cannot be read gives none (`list_skills` still answers; a run says why).
   */
  nodesFor(skill: string): SkillNodes {
    const config = this.#catalog?.nodesConfig();
    let entries: NodeEntry[];
    try {
      entries = this.registry.list();
    } catch {
      return { scope: [], online: [] };
    }
    const scope = entries
      .filter(
        (entry) =>
          entry.role === "node" && (config === undefined || skillAllowedOn(config, skill, entry.name)),
      )
      .map((entry) => entry.name);
    return { scope, online: scope.filter((name) => this.hub.isOnline(name)) };
  }

  /**
   * Removes a node: its credential stops working and its open channel is closed at once (its
   * runs in flight end `interrupted`). `node_not_found`.
   */
  async removeNode(name: string): Promise<NodeEntry> {
    const removed = await this.registry.remove(name);
    this.hub.disconnect(name, "removed");
    this.#live.changed();
    return removed;
  }

  /**
   * Asks a node to sync now: `sync-skills` down its channel (`sent` false when it has none
   * open; the agent also syncs every minute and on connecting). `node_not_found`.
   */
  syncNode(name: string): { readonly node: NodeEntry; readonly sent: boolean } {
    const node = this.registry.get(name);
    if (node === undefined) {
      const known = this.registry.list().map((entry) => entry.name);
      throw new NodeError(
        "node_not_found",
        `no node is named ${name}; known nodes: ${known.join(", ") || "none"}`,
        {
          name,
          known,
        },
      );
    }
    return { node, sent: this.hub.sync(name) };
  }

  /** Closes every channel; runs in flight end `interrupted`; the live-state file says the server stopped. */
  close(): void {
    this.hub.close();
    this.#live.close();
  }

  /** Prunes packages no registered node's manifest lists now. */
  async #prune(packaging: NodePackaging): Promise<void> {
    if (packaging.prune === undefined) return;
    const keep = new Set<string>();
    for (const entry of this.registry.list())
      for (const skill of this.skillsFor(entry)) keep.add(`${skill.name}@${skill.hash}`);
    await packaging.prune(keep);
  }

  #requirePackaging(): NodePackaging {
    if (this.#packaging === undefined)
      throw new NodeError("controller_not_ready", "the controller is not ready to serve nodes yet", {
        reason: "not_ready",
      });
    return this.#packaging;
  }
}

/** The `name@hash` list of a manifest's skills, to tell whether a node's set changed. */
function listedKey(skills: readonly ManifestSkillInput[]): string {
  return skills.map((skill) => `${skill.name}@${skill.hash}`).join(",");
}

/** The sequence inside a signed manifest's payload (0 when it cannot be read). */
function sequenceOf(signed: SignedSkillsManifest): number {
  try {
    const manifest = JSON.parse(Buffer.from(signed.payload, "base64").toString("utf8")) as {
      sequence?: unknown;
    };
    return typeof manifest.sequence === "number" ? manifest.sequence : 0;
  } catch {
    return 0;
  }
}

/** What of a node's state a list shows, as one string to compare. */
function signatureOf(state: NodeState): string {
  return JSON.stringify([
    state.online,
    state.connected,
    state.runsInFlight,
    state.features,
    state.skills,
    state.sandbox,
  ]);
}
