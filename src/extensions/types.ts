import type { JsonSchema } from "../skill/parameters-schema.js";
import type { EventName, EventScope, Hook } from "./events.js";

/** The tiers an extension tool may have; `draft` and `skill-edit` are skillgate's own. */
export type ExtensionToolTier = "read" | "change" | "destructive";

/**
 * A tool an extension adds. It joins every turn's tools and goes through the same broker
 * as skillgate's: classified by its tier (default `change`, so it asks), decided by the
 * rules, approved by a person when they say ask, and recorded in the audit log.
 */
export interface ExtensionTool {
  /** A letter then letters, digits, `_` or `-`; at most 64 characters. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The input's JSON Schema (an object schema); default: any object. Inputs are validated against it. */
  readonly inputSchema?: JsonSchema;
  /** Default `change`. */
  readonly tier?: ExtensionToolTier;
  /** Runs the tool; a string is what the model sees. A throw becomes a `HOST:` failure. */
  execute(input: Record<string, unknown>, context: ExtensionToolContext): unknown;
}

/** What an extension tool's `execute` gets besides its input. */
export interface ExtensionToolContext {
  readonly requestId: string;
  readonly scope?: EventScope;
  readonly signal?: AbortSignal;
}

/** A slash command: `run` gets the text after the command's name. */
export interface ExtensionCommand {
  readonly name: string;
  readonly help: string;
  run(argument: string): unknown;
}

/** A skill an extension holds in memory. */
export interface ExtensionSkillInit {
  readonly name: string;
  readonly body: string;
  /** Default: the body's first paragraph. */
  readonly description?: string;
  /** The source name shown in listings; default `extension:<file>`. */
  readonly source?: string;
}

/** A call as an approval policy sees it. */
export interface ApprovalCall {
  readonly tool: string;
  readonly tier?: string;
  readonly skill?: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly scope?: EventScope;
}

/**
 * Decides whether a tool call may go ahead: `true` or `"allow"` leaves the rules' decision as
 * it is, `"ask"` makes a person approve it, `false` or `"deny"` refuses it. It can only
 * narrow: a rule's deny stays a deny and a rule's ask still asks a person.
 */
export type ApprovalPolicy = (
  call: ApprovalCall,
) => boolean | "allow" | "ask" | "deny" | Promise<boolean | "allow" | "ask" | "deny">;

/** Where a hook came from, for `skillgate hooks list`. */
export interface HookInfo {
  /** The file that registered it (an extension or a hooks file), or `program`. */
  readonly origin: string;
  /** `config` or `project` for files read from those folders. */
  readonly scope?: "config" | "project" | "path";
  /** A shell hook's command, shown to the owner before it runs. */
  readonly command?: string;
  /** A shell hook's glob (or matcher) on the tool name. */
  readonly match?: string;
}

/** What an extension's `setup(reg)` receives: registration, and nothing else. */
export interface Registrar {
  tool(tool: ExtensionTool): Registrar;
  skill(nameOrInit: string | ExtensionSkillInit, body?: string, description?: string): Registrar;
  command(name: string, run: ExtensionCommand["run"], options?: { help?: string }): Registrar;
  on<Event extends EventName>(event: Event, hook: Hook<Event>, info?: Partial<HookInfo>): Registrar;
  approval(policy: ApprovalPolicy): Registrar;
}
