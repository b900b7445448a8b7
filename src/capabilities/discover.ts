import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../catalog/catalog.js";
import type { SkillDecision } from "../catalog/decisions.js";
import type { DiscoveryResult } from "../catalog/discover.js";
import type { CapabilitiesConfig } from "../config/capabilities-config.js";
import type { Folders } from "../core/folders.js";
import { type CapabilityDecision, decideRegistration } from "./decide.js";
import type { DescriptorCandidate } from "./descriptors/candidate.js";
import {
  candidateFromAdapterFile,
  candidateFromLuaFile,
  type ManifestContext,
} from "./descriptors/from-manifest.js";
import { catalogSource, descriptorFromSkill, type SourceOf } from "./descriptors/from-skill.js";
import { type CapabilityEventSink, NO_EVENTS } from "./events.js";
import { canonicalRoots } from "./manifests/manifest-paths.js";
import type { RuntimeMode } from "./types.js";

/**
 * Capability discovery: every manifest in `<config>/adapters/*.yaml` and
 * `<config>/capabilities/*.yaml`, with the project opt-in each root's
 * `.skillgate/adapters/*.yaml` and `.skillgate/capabilities/*.yaml`, and every skill the
 * catalog found, each becomes one {@link DescriptorCandidate}, in that order (which is
 * also the conflict order: the owner's manifest keeps an id a project's also uses). A skill
 * an adapter manifest offers is described by that manifest alone. Nothing is run or loaded
 * here: `decideRegistration` decides, and only then may a provider be made.
 */

/** The most manifests read from one folder; the rest are reported, not read. */
export const MAX_MANIFESTS_PER_FOLDER = 500;

/** One manifests folder and what was found there, for `doctor`. */
export interface ManifestFolderReport {
  readonly folder: string;
  readonly scope: "config" | "project";
  readonly kind: "adapters" | "capabilities";
  readonly exists: boolean;
  readonly found: number;
  /** Manifests past {@link MAX_MANIFESTS_PER_FOLDER}, not read. */
  readonly leftOut: number;
}

/** Inputs of {@link discoverCapabilities}. */
export interface CapabilityDiscoveryOptions {
  /** What the catalog found. */
  readonly catalog: DiscoveryResult;
  readonly folders: Folders;
  /** The project roots. */
  readonly roots: readonly string[];
  /** The catalog's skill folders: manifest paths may lead into them. */
  readonly skillRoots: readonly string[];
  /** The project opt-in: read projects' manifests, and let the owner's manifests point into projects. */
  readonly project: boolean;
  /** How a catalog skill's source is named for trust (the store's record); default the catalog's source. */
  readonly sourceOf?: SourceOf;
  readonly events?: CapabilityEventSink;
}

/** What {@link discoverCapabilities} found. */
export interface CapabilityDiscovery {
  readonly candidates: readonly DescriptorCandidate[];
  readonly manifestFolders: readonly ManifestFolderReport[];
}

/** Finds every candidate. Never throws for content: problems are on the candidates. */
export function discoverCapabilities(options: CapabilityDiscoveryOptions): CapabilityDiscovery {
  const sourceOf = options.sourceOf ?? catalogSource;
  const events = options.events ?? NO_EVENTS;
  const findSkill = skillFinder(options.catalog.decisions);
  const skillRoots = canonicalRoots(options.skillRoots);
  const projectRoots = options.project ? options.roots : [];
  const places: Array<{
    folder: string;
    scope: "config" | "project";
    kind: "adapters" | "capabilities";
    context: ManifestContext;
  }> = [];
  const configContext: ManifestContext = {
    scope: "config",
    paths: {
      base: options.folders.config,
      home: options.folders.home,
      allowedRoots: canonicalRoots([options.folders.config, ...projectRoots, ...options.skillRoots]),
    },
    findSkill,
    sourceOf,
  };
  places.push({
    folder: join(options.folders.config, "adapters"),
    scope: "config",
    kind: "adapters",
    context: configContext,
  });
  places.push({
    folder: join(options.folders.config, "capabilities"),
    scope: "config",
    kind: "capabilities",
    context: configContext,
  });
  for (const root of projectRoots) {
    const context: ManifestContext = {
      scope: "project",
      paths: {
        base: root,
        home: options.folders.home,
        allowedRoots: [...canonicalRoots([root]), ...skillRoots],
      },
      findSkill,
      sourceOf,
    };
    places.push({
      folder: join(root, ".skillgate", "adapters"),
      scope: "project",
      kind: "adapters",
      context,
    });
    places.push({
      folder: join(root, ".skillgate", "capabilities"),
      scope: "project",
      kind: "capabilities",
      context,
    });
  }
  const candidates: DescriptorCandidate[] = [];
  const manifestFolders: ManifestFolderReport[] = [];
  for (const place of places) {
    const listed = manifestFiles(place.folder);
    manifestFolders.push({
      folder: place.folder,
      scope: place.scope,
      kind: place.kind,
      exists: listed !== undefined,
      found: Math.min(listed?.length ?? 0, MAX_MANIFESTS_PER_FOLDER),
      leftOut: Math.max(0, (listed?.length ?? 0) - MAX_MANIFESTS_PER_FOLDER),
    });
    for (const name of (listed ?? []).slice(0, MAX_MANIFESTS_PER_FOLDER)) {
      const file = join(place.folder, name);
      candidates.push(
        place.kind === "adapters"
          ? candidateFromAdapterFile(file, place.context)
          : candidateFromLuaFile(file, place.context),
      );
    }
  }
  // A skill an adapter manifest offers is described by the manifest, not again as a bare SKILL.md.
  const offered = new Set(
    candidates.flatMap((candidate) => (candidate.skill !== undefined ? [candidate.skill.name] : [])),
  );
  for (const decision of options.catalog.decisions) {
    if (offered.has(decision.name) && decision.decision !== "shadowed") continue;
    const candidate = descriptorFromSkill(decision, sourceOf);
    if (candidate !== undefined) candidates.push(candidate);
  }
  // The digest of a bare SKILL.md is computed when asked: ask only when someone listens.
  if (events !== NO_EVENTS)
    for (const candidate of candidates)
      events.emit("/skill/discovered", {
        id: candidate.id,
        kind: candidate.kind ?? null,
        source: candidate.source,
        location: candidate.location,
        manifest_digest: candidate.descriptor?.manifestDigest ?? null,
      });
  return { candidates, manifestFolders };
}

/** Inputs of {@link inspectCapabilities}: discovery's and the decision's. */
export interface InspectOptions extends CapabilityDiscoveryOptions {
  readonly runtime: RuntimeMode;
  readonly config: CapabilitiesConfig;
}

/** What {@link inspectCapabilities} found and decided. */
export interface CapabilityInspection extends CapabilityDiscovery {
  readonly decisions: readonly CapabilityDecision[];
}

/** Discovers and decides, publishing `/skill/registration/decided` for each decision. */
export function inspectCapabilities(options: InspectOptions): CapabilityInspection {
  const found = discoverCapabilities(options);
  const decisions = decideRegistration(found.candidates, {
    runtime: options.runtime,
    config: options.config,
  });
  const events = options.events ?? NO_EVENTS;
  if (events !== NO_EVENTS)
    for (const item of decisions)
      events.emit("/skill/registration/decided", {
        id: item.decision.id,
        status: item.decision.status,
        reasons: item.decision.reasons,
        runtime: item.runtime,
        registered_to: item.decision.registeredTo ?? [],
        detail: item.decision.detail,
      });
  return { ...found, decisions };
}

/** {@link inspectCapabilities} over a catalog: its discovery, folders, roots, skill folders and configuration. */
export function inspectCatalogCapabilities(
  catalog: Catalog,
  options: {
    runtime?: RuntimeMode;
    project: boolean;
    sourceOf?: SourceOf;
    events?: CapabilityEventSink;
    /** The catalog's discovery when the caller already ran it (default: run it now). */
    discovery?: DiscoveryResult;
  },
): CapabilityInspection {
  return inspectCapabilities({
    catalog: options.discovery ?? catalog.discover(),
    folders: catalog.folders,
    roots: catalog.roots,
    skillRoots: catalog.folderSources().map((source) => source.folder),
    project: options.project,
    runtime: options.runtime ?? "normal",
    config: catalog.config.capabilities,
    ...(options.sourceOf !== undefined ? { sourceOf: options.sourceOf } : {}),
    ...(options.events !== undefined ? { events: options.events } : {}),
  });
}

/** The `.yaml` / `.yml` files of a folder, by name; undefined when the folder cannot be listed. */
function manifestFiles(folder: string): string[] | undefined {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter(
        (entry) =>
          (entry.isFile() || entry.isSymbolicLink()) &&
          !entry.name.startsWith(".") &&
          /\.ya?ml$/.test(entry.name),
      )
      .map((entry) => entry.name)
      .sort();
  } catch {
    return undefined;
  }
}

/**
 * Finds the catalog's decision for a canonical SKILL.md path. The map is built on the first
 * question (a tree without manifests never pays for it); a location seen twice (one folder
 * searched as two sources) keeps the decision that is not shadowed.
 */
function skillFinder(decisions: readonly SkillDecision[]): (skillFile: string) => SkillDecision | undefined {
  let byPath: Map<string, SkillDecision> | undefined;
  return (skillFile) => {
    if (byPath === undefined) {
      byPath = new Map();
      for (const decision of decisions) {
        if (decision.decision === "rejected") continue;
        let canonical: string;
        try {
          canonical = realpathSync(decision.location);
        } catch {
          continue;
        }
        const before = byPath.get(canonical);
        if (before === undefined || before.decision === "shadowed") byPath.set(canonical, decision);
      }
    }
    return byPath.get(skillFile);
  };
}
