import type { NodesConfig } from "../../config/nodes-config.js";
import { skillAllowedOn } from "../../config/nodes-config.js";
import type { Clock } from "../../core/clock.js";
import { hashSkillFolder } from "../../skill/content-hash.js";
import type { ExecutionMode } from "../../skill/governance.js";
import type { Skill } from "../../skill/skill.js";
import type { SignedSkillsManifest } from "../protocol.js";
import { NodeError } from "./node-errors.js";
import { NodeHub } from "./node-hub.js";
import { type NodeEntry, NodeRegistry } from "./node-registry.js";
import { NodeRunner } from "./node-runner.js";
import type { NodeRole } from "./registry-file.js";

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
  /** The sequence the next manifest would carry at least (for heartbeat answers); 0 when unknown. */
  currentSequence(): number;
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
  #catalog: ControllerCatalog | undefined;
  #packaging: NodePackaging | undefined;

  constructor(options: NodeControllerOptions) {
    this.registry = new NodeRegistry({
      dataFolder: options.dataFolder,
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    });
    this.hub = new NodeHub({
      registry: this.registry,
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
      ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
      ...(options.onChange !== undefined ? { onChange: options.onChange } : {}),
    });
    this.runner = new NodeRunner({
      hub: this.hub,
      allowedOn: (skill, node) => {
        const config = this.#catalog?.nodesConfig();
        return config === undefined || skillAllowedOn(config, skill, node);
      },
      ...(options.syncWaitMs !== undefined ? { syncWaitMs: options.syncWaitMs } : {}),
    });
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
      const hash = hashSkillFolder(skill.directory).hash;
      if (hash !== undefined) chosen.push({ name: skill.name, hash, folder: skill.directory });
    }
    return chosen.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The controller's public key, for an enrolment answer. */
  publicKeyPem(): Promise<string> {
    return this.#requirePackaging().publicKeyPem();
  }

  /** A freshly signed manifest for `node`. */
  manifest(node: NodeEntry): Promise<SignedSkillsManifest> {
    return this.#requirePackaging().buildManifest(node.name, this.skillsFor(node));
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

  /** The sequence a heartbeat answer carries. */
  manifestSequence(): number {
    return this.#packaging?.currentSequence() ?? 0;
  }

  /** Which (role `node`) nodes may run `skill`, and which of them are online. */
  nodesFor(skill: string): SkillNodes {
    const config = this.#catalog?.nodesConfig();
    const scope = this.registry
      .list()
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

  /** Closes every channel; runs in flight end `interrupted`. */
  close(): void {
    this.hub.close();
  }

  #requirePackaging(): NodePackaging {
    if (this.#packaging === undefined)
      throw new NodeError("controller_not_ready", "the controller is not ready to serve nodes yet", {
        reason: "not_ready",
      });
    return this.#packaging;
  }
}
