import type { Command } from "commander";
import { bootstrapCatalog, bootstrapSkillgate } from "../../app/bootstrap.js";
import type { CatalogSetup } from "../../app/catalog-setup.js";
import type { OwnerDecisions } from "../../app/owner/plan-decisions.js";
import type { Skillgate, SkillgateOptions } from "../../app/skillgate.js";
import { resolveFolders } from "../../core/folders.js";
import { stderrLogger, streamLogger } from "../../observe/logger.js";
import { ApprovalQueue } from "../../policy/approval-queue.js";
import type { Store } from "../../store/store.js";
import type { CliOutput } from "./output.js";

/** The global options every command shares. */
export interface GlobalOptions {
  readonly root?: string[];
  readonly config?: string;
  readonly data?: string;
  readonly builtins?: boolean;
  readonly projectExtensions?: boolean;
}

/** skillgate's options from the global flags: roots default to the current folder. */
export function skillgateOptions(command: Command): SkillgateOptions {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    roots: options.root && options.root.length > 0 ? options.root : [process.cwd()],
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(options.builtins === false ? { builtins: false } : {}),
    ...(options.projectExtensions === true ? { projectExtensions: true } : {}),
    // The library is silent unless given a logger; the CLI (and the MCP server it starts) logs to stderr.
    logger: stderrLogger,
  };
}

/**
 * The catalog the global flags describe, through the bootstrap (app/bootstrap.ts): the
 * extensions are loaded, so their skills are listed; a file that failed is a warning on stderr.
 */
export function catalogFromFlags(command: Command, output: CliOutput): Promise<CatalogSetup> {
  return bootstrapCatalog({ ...skillgateOptions(command), logger: streamLogger(output.err) });
}

/** The whole Skillgate the global flags describe, through the bootstrap (extensions and hooks loaded). */
export function skillgateFromFlags(command: Command, output: CliOutput): Promise<Skillgate> {
  return bootstrapSkillgate({ ...skillgateOptions(command), logger: streamLogger(output.err) });
}

/**
 * The managed store in the data folder the global flags name, as the Skillgate opens it
 * (`<data>/skills`), without building the rest of the app: the store commands need no catalog,
 * extensions or runners.
 */
export async function openStoreFromFlags(command: Command): Promise<Store> {
  const { Store } = await import("../../store/store.js");
  return Store.open({ dataFolder: resolveFolders(skillgateOptions(command)).data });
}

/**
 * What the owner's decisions from the command line work on (app/owner/plan-decisions.ts): the
 * store, the approval queue, and the notification channels of config.yaml (read once, as the
 * command starts; a broken file is reported and skips the notification, never the decision).
 */
export async function ownerDecisionsFromFlags(command: Command, output: CliOutput): Promise<OwnerDecisions> {
  const folders = resolveFolders(skillgateOptions(command));
  const { Authoring } = await import("../../app/authoring.js");
  const { loadConfig } = await import("../../config/config.js");
  return {
    store: () => openStoreFromFlags(command),
    approvals: approvalQueueFromFlags(command),
    authoring: new Authoring({
      config: () => loadConfig(folders.config).notifications,
      logger: streamLogger(output.err),
    }),
  };
}

/** The approval queue (`<data>/approvals`) of the data folder the global flags name. */
export function approvalQueueFromFlags(command: Command): ApprovalQueue {
  return ApprovalQueue.open({ dataFolder: resolveFolders(skillgateOptions(command)).data });
}
