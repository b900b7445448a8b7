import {
  type DeclaredPackages,
  declaresPackages,
  readDeclaredPackages,
} from "../../skill/packages/declared.js";
import type { RunResult } from "../contract.js";
import { refusal } from "../refusal.js";
import type { SandboxProxyProvider } from "../sandbox/sandbox-runner.js";
import type { SnapshotStore } from "../snapshot.js";
import { buildEnvironment } from "./build-environment.js";
import type { EnvironmentStore, PackageEnvironment } from "./environment-store.js";
import { describeSource, type PackageIndexes } from "./index-settings.js";

/** Options of {@link PackageEnvironments}. */
export interface PackageEnvironmentsOptions {
  readonly store: EnvironmentStore;
  /** Verifies the skill's hash and gives the snapshot the declarations are read from. */
  readonly snapshots: SnapshotStore;
  /** The package sources, read at each build and each description (the configuration may change). */
  readonly indexes: PackageIndexes | (() => PackageIndexes);
  readonly proxy: SandboxProxyProvider;
  readonly limits?: () => { readonly timeoutMs: number; readonly maxOutputBytes: number };
}

/** One skill version whose environment is looked up or built. */
export interface EnvironmentSubject {
  readonly skill: string;
  /** The full content hash the call was approved against. */
  readonly hash: string;
  /** The skill's live folder: hashed and snapshotted before anything is read for a build. */
  readonly folder: string;
  readonly signal?: AbortSignal;
}

/**
 * The package environments of skills (docs/running-scripts.md, "Packages"): what a skill
 * declares, the text a person approves before a build, the environment of a hash when it
 * exists, and the build itself, from the verified snapshot of the approved hash.
 */
export class PackageEnvironments {
  readonly #options: PackageEnvironmentsOptions;

  constructor(options: PackageEnvironmentsOptions) {
    this.#options = options;
  }

  /** The package sources in use. */
  get indexes(): PackageIndexes {
    const indexes = this.#options.indexes;
    return typeof indexes === "function" ? indexes() : indexes;
  }

  /** What a skill folder declares (diagnostics included). */
  declared(folder: string): DeclaredPackages {
    return readDeclaredPackages(folder);
  }

  /** The built environment of a hash, if any. */
  find(hash: string): PackageEnvironment | undefined {
    return this.#options.store.find(hash);
  }

  /** What a build of these declarations installs and from where, in words for an approval. */
  describeBuild(skill: string, declared: DeclaredPackages): string {
    const indexes = this.indexes;
    const lines = [
      `Before the run, skillgate builds ${skill}'s package environment (once for this version of the skill), in the sandbox:`,
    ];
    const { python, node } = declared;
    if (python !== undefined)
      lines.push(
        `- Python (pip, wheels only, no build scripts): ${python.requirements.join(", ")}, from ${describeSource(indexes.python)}; declared in ${python.sources.join(", ")}`,
      );
    if (node !== undefined)
      lines.push(
        `- Node (npm ci --ignore-scripts): ${node.dependencies.join(", ")}, from ${describeSource(indexes.node)}; locked in ${node.folder === "" ? "" : `${node.folder}/`}${node.lock}`,
      );
    const hosts = [
      python !== undefined ? indexes.python : undefined,
      node !== undefined ? indexes.node : undefined,
    ]
      .filter((source) => source !== undefined)
      .flatMap((source) => (source.kind === "url" ? source.hosts : []))
      .join(", ");
    lines.push(hosts !== "" ? `The build may reach only: ${hosts}.` : "The build has no network.");
    return lines.join("\n");
  }

  /**
   * The environment of the approved hash, built when it does not exist yet (or `rebuild`):
   * the live folder is verified against the hash and snapshotted, the declarations read from
   * the snapshot, and the build run. A refusal says why nothing was installed.
   */
  async ensure(
    subject: EnvironmentSubject,
    rebuild = false,
  ): Promise<
    { ok: true; environment: PackageEnvironment; built: boolean } | { ok: false; result: RunResult }
  > {
    const { store, snapshots } = this.#options;
    if (rebuild) store.remove(subject.hash);
    const existing = store.find(subject.hash);
    if (existing !== undefined) return { ok: true, environment: existing, built: false };
    const prepared = snapshots.prepare({
      skill: subject.skill,
      hash: subject.hash,
      folder: subject.folder,
      script: "its package environment",
    });
    if (!prepared.ok) return { ok: false, result: prepared.refusal };
    try {
      const declared = readDeclaredPackages(prepared.snapshot.folder);
      if (declared.diagnostics.some((item) => item.severity === "error"))
        return {
          ok: false,
          result: refusal(
            "invalid_package_declaration",
            `${subject.skill}'s package declarations have problems, so nothing was installed: ${declared.diagnostics.map((item) => item.message).join(" ")}`,
          ),
        };
      if (!declaresPackages(declared))
        return {
          ok: false,
          result: refusal(
            "environment_not_declared",
            `${subject.skill} declares no packages; there is nothing to build.`,
          ),
        };
      const limits = this.#options.limits?.();
      const outcome = await buildEnvironment(
        {
          store,
          indexes: this.indexes,
          proxy: this.#options.proxy,
          ...(limits !== undefined ? { limits } : {}),
        },
        {
          skill: subject.skill,
          hash: subject.hash,
          snapshotFolder: prepared.snapshot.folder,
          declared,
          ...(subject.signal !== undefined ? { signal: subject.signal } : {}),
        },
      );
      return outcome.ok
        ? { ok: true, environment: outcome.environment, built: true }
        : { ok: false, result: outcome.result };
    } finally {
      snapshots.release(prepared.snapshot);
    }
  }

  /** Marks an environment in use for a run (a prune leaves it alone) until {@link release}. */
  acquire(environment: PackageEnvironment): void {
    this.#options.store.acquire(environment.hash);
  }

  release(environment: PackageEnvironment): void {
    this.#options.store.release(environment.hash);
  }
}
