import { basename } from "node:path";
import { describeError, SkillgateError } from "../core/errors.js";
import { Skill } from "../skill/skill.js";
import { EVENTS, type EventName, type EventPayloads, type Hook, isEventName } from "./events.js";
import type {
  ApprovalPolicy,
  ExtensionCommand,
  ExtensionSkillInit,
  ExtensionTool,
  HookInfo,
  Registrar,
} from "./types.js";

/** Hooking a name that is not one of {@link EVENTS}. */
export class UnknownEventError extends SkillgateError<{ event: string; events: readonly string[] }> {
  constructor(event: string) {
    super("unknown_event", `unknown event ${JSON.stringify(event)}; events are: ${EVENTS.join(", ")}`, {
      event,
      events: EVENTS,
    });
  }
}

/** A registration an extension cannot make: a bad tool name, a second tool of one name… */
export class InvalidExtensionError extends SkillgateError<{ kind: string; name: string }> {
  constructor(kind: string, name: string, problem: string) {
    super("invalid_extension", `${kind} ${JSON.stringify(name)}: ${problem}`, { kind, name });
  }
}

/** A hook as registered, with where it came from (shown by `skillgate hooks list`). */
export interface RegisteredHook<Event extends EventName = EventName> {
  readonly event: Event;
  readonly hook: Hook<Event>;
  readonly info: HookInfo;
}

/** A registry's contents as plain data (`skillgate extensions`, `skillgate hooks list`). */
export interface RegistrySummary {
  readonly loaded: boolean;
  readonly tools: readonly { name: string; tier: string; description: string; origin: string }[];
  readonly skills: readonly { name: string; source: string; description: string; origin: string }[];
  readonly commands: readonly { name: string; help: string; origin: string }[];
  readonly hooks: readonly ({ event: EventName } & HookInfo)[];
  /** Where the approval policy in force came from; `undefined` when there is none. */
  readonly approvalPolicy: string | undefined;
  readonly notes: readonly string[];
}

/** Registrations made while loading a file are tagged with it; the program's own are not. */
interface Entry<Value> {
  readonly value: Value;
  readonly file: string | undefined;
}

/** Notes kept; older ones are dropped first. */
export const MAX_NOTES = 500;

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const COMMAND_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * What extensions add: tools, skills, slash commands, hooks and an approval policy, plus
 * notes on what each file registered or why it failed. An extension's `setup(reg)` gets a
 * {@link Registrar} over this registry and nothing else: no model, no engine, no history.
 *
 * Registrations made while a file loads are marked as the file's; {@link dropLoaded}
 * removes exactly those, so a reload never loses what the running program registered.
 */
export class Registry implements Registrar {
  /** One line per loaded file (what it added or why it failed) and per failed hook. */
  readonly notes: string[] = [];
  #tools: Entry<ExtensionTool>[] = [];
  #skills: Entry<Skill>[] = [];
  #commands: Entry<ExtensionCommand>[] = [];
  #approvals: Entry<ApprovalPolicy>[] = [];
  #hooks: Entry<RegisteredHook>[] = [];
  #loading: string | undefined;
  #loaded = false;
  #skillList: readonly Skill[] = [];
  #changeListeners = new Set<() => void>();

  /** Tools in registration order. */
  get tools(): readonly ExtensionTool[] {
    return this.#tools.map((entry) => entry.value);
  }

  /**
   * Skills in registration order. The same array is returned until a skill is added or
   * dropped, so discovery can tell that nothing changed.
   */
  get skills(): readonly Skill[] {
    return this.#skillList;
  }

  /** Commands by name, in registration order. */
  get commands(): ReadonlyMap<string, ExtensionCommand> {
    return new Map(this.#commands.map((entry) => [entry.value.name, entry.value]));
  }

  /** Every event's hooks, in registration order. */
  get hooks(): Readonly<Record<EventName, readonly RegisteredHook[]>> {
    const byEvent = Object.fromEntries(EVENTS.map((event) => [event, [] as RegisteredHook[]])) as Record<
      EventName,
      RegisteredHook[]
    >;
    for (const entry of this.#hooks) byEvent[entry.value.event].push(entry.value);
    return byEvent;
  }

  /** The approval policy in force: the last one registered; `undefined` approves what the rules allow. */
  get approve(): ApprovalPolicy | undefined {
    return this.#approvals.at(-1)?.value;
  }

  /** Whether extension files are loaded now (set by `load`, cleared by {@link dropLoaded}). */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Adds a tool. Its name must be unique and look like a tool name (`word_count`). */
  tool(tool: ExtensionTool): this {
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new InvalidExtensionError(
        "tool",
        tool.name,
        "a tool name is a letter then letters, digits, _ or -",
      );
    }
    if (tool.inputSchema !== undefined && tool.inputSchema.type !== "object") {
      throw new InvalidExtensionError(
        "tool",
        tool.name,
        'its inputSchema must be a JSON Schema with "type": "object"',
      );
    }
    if (typeof tool.description !== "string") {
      throw new InvalidExtensionError("tool", tool.name, "it has no description");
    }
    if (typeof tool.execute !== "function") {
      throw new InvalidExtensionError("tool", tool.name, "it has no execute function");
    }
    if (this.#tools.some((entry) => entry.value.name === tool.name)) {
      throw new InvalidExtensionError("tool", tool.name, "a tool of that name is already registered");
    }
    this.#tools.push(this.#entry(tool));
    this.#changed();
    return this;
  }

  /**
   * Adds a skill held in memory, at the catalog's "caller" precedence, with the extension's
   * source name: `skill(name, body, description?)` or `skill({ name, body, description })`.
   */
  skill(nameOrInit: string | ExtensionSkillInit, body?: string, description?: string): this {
    const init: ExtensionSkillInit =
      typeof nameOrInit === "string"
        ? { name: nameOrInit, body: body ?? "", ...(description !== undefined ? { description } : {}) }
        : nameOrInit;
    const source =
      init.source ?? `extension:${this.#loading === undefined ? "program" : basename(this.#loading)}`;
    const skill = new Skill({
      name: init.name,
      source,
      where: this.#loading ?? "registered by the program",
      body: init.body,
      ...(init.description !== undefined ? { description: init.description } : {}),
    });
    this.#skills.push(this.#entry(skill));
    this.#skillList = this.#skills.map((entry) => entry.value);
    this.#changed();
    return this;
  }

  /** Adds a slash command. A later command of the same name replaces the earlier one. */
  command(name: string, run: ExtensionCommand["run"], options: { help?: string } = {}): this {
    if (typeof name !== "string" || !COMMAND_NAME.test(name)) {
      throw new InvalidExtensionError("command", name, "a command name is lower case letters, digits and -");
    }
    this.#commands = this.#commands.filter((entry) => entry.value.name !== name);
    this.#commands.push(this.#entry({ name, help: options.help ?? "", run }));
    this.#changed();
    return this;
  }

  /** Hooks `event`. Throws {@link UnknownEventError} for a name not in {@link EVENTS}. */
  on<Event extends EventName>(event: Event, hook: Hook<Event>, info: Partial<HookInfo> = {}): this {
    if (!isEventName(event)) throw new UnknownEventError(String(event));
    const registered: RegisteredHook<Event> = {
      event,
      hook,
      info: { origin: info.origin ?? this.#loading ?? "program", ...withoutOrigin(info) },
    };
    this.#hooks.push(this.#entry(registered as unknown as RegisteredHook));
    this.#changed();
    return this;
  }

  /** Replaces the approval policy; the last one registered wins. */
  approval(policy: ApprovalPolicy): this {
    this.#approvals.push(this.#entry(policy));
    this.#changed();
    return this;
  }

  /**
   * Runs `event`'s hooks in registration order and returns their return values. A hook
   * that throws (or rejects) is noted as `EVENT hook failed: Name: message` and left out
   * of the results; the others still run. With `chain`, each hook gets the payload the
   * previous answer made (`after_tool` hooks each see the result the one before rewrote).
   */
  async fire<Event extends EventName>(
    event: Event,
    payload: EventPayloads[Event],
    chain?: (payload: EventPayloads[Event], answer: unknown) => EventPayloads[Event],
  ): Promise<unknown[]> {
    if (!isEventName(event)) throw new UnknownEventError(String(event));
    const hooks = this.#hooks.filter((entry) => entry.value.event === event);
    const results: unknown[] = [];
    let current = payload;
    for (const entry of hooks) {
      try {
        const answer = await (entry.value.hook as Hook<Event>)(current);
        results.push(answer);
        if (chain !== undefined) current = chain(current, answer);
      } catch (error) {
        this.note(`${event} hook failed: ${describeError(error)}`);
      }
    }
    return results;
  }

  /** Runs a command by name. Throws `unknown_command` for a name nobody registered. */
  async runCommand(name: string, argument = ""): Promise<unknown> {
    const command = this.commands.get(name);
    if (command === undefined) {
      throw new SkillgateError("unknown_command", `no command named ${JSON.stringify(name)}`, {
        name,
        commands: [...this.commands.keys()],
      });
    }
    return command.run(argument);
  }

  /**
   * Runs `register` with registrations marked as coming from `file` (used by `load`). The
   * extension gets a {@link Registrar} that can only register.
   */
  async loadingFrom(file: string, register: (registrar: Registrar) => unknown): Promise<void> {
    try {
      await register(this.#registrar(file));
    } catch (error) {
      // A file whose setup failed part way registers nothing: half an extension is worse than none.
      this.#keepOnly((entry) => entry.file !== file);
      throw error;
    }
  }

  /** Marks the files as loaded (set by `load` after a full read). */
  markLoaded(): this {
    this.#loaded = true;
    return this;
  }

  /** What a file registered, counted, for its note. */
  countFrom(file: string): {
    tools: number;
    skills: number;
    commands: number;
    hooks: number;
    approvals: number;
  } {
    const from = (entries: readonly Entry<unknown>[]) =>
      entries.filter((entry) => entry.file === file).length;
    return {
      tools: from(this.#tools),
      skills: from(this.#skills),
      commands: from(this.#commands),
      hooks: from(this.#hooks),
      approvals: from(this.#approvals),
    };
  }

  /** What is registered and where each came from (a file's path, or `program`), for listings. */
  summary(): RegistrySummary {
    const origin = (file: string | undefined): string => file ?? "program";
    return {
      loaded: this.#loaded,
      tools: this.#tools.map((entry) => ({
        name: entry.value.name,
        tier: entry.value.tier ?? "change",
        description: entry.value.description,
        origin: origin(entry.file),
      })),
      skills: this.#skills.map((entry) => ({
        name: entry.value.name,
        source: entry.value.source,
        description: entry.value.description,
        origin: origin(entry.file),
      })),
      commands: this.#commands.map((entry) => ({
        name: entry.value.name,
        help: entry.value.help,
        origin: origin(entry.file),
      })),
      hooks: this.#hooks.map((entry) => ({ event: entry.value.event, ...entry.value.info })),
      approvalPolicy: this.#approvals.length > 0 ? origin(this.#approvals.at(-1)?.file) : undefined,
      notes: [...this.notes],
    };
  }

  /** Removes what the files registered and keeps what the program registered. */
  dropLoaded(): this {
    this.#keepOnly((entry) => entry.file === undefined);
    this.#loaded = false;
    return this;
  }

  /** Records a note, keeping the latest {@link MAX_NOTES} (a long-running server's failing hook must not grow it without end). */
  note(text: string): void {
    this.notes.push(text);
    if (this.notes.length > MAX_NOTES) this.notes.splice(0, this.notes.length - MAX_NOTES);
  }

  #keepOnly(keep: (entry: Entry<unknown>) => boolean): void {
    const skillsBefore = this.#skills.length;
    this.#tools = this.#tools.filter(keep);
    this.#skills = this.#skills.filter(keep);
    this.#commands = this.#commands.filter(keep);
    this.#approvals = this.#approvals.filter(keep);
    this.#hooks = this.#hooks.filter(keep);
    if (this.#skills.length !== skillsBefore) this.#skillList = this.#skills.map((entry) => entry.value);
    this.#changed();
  }

  /** Calls `listener` after every registration or drop (a server re-lists its tools). */
  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  #entry<Value>(value: Value): Entry<Value> {
    return { value, file: this.#loading };
  }

  #changed(): void {
    for (const listener of this.#changeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; registering goes on.
      }
    }
  }

  /**
   * The only face of the registry an extension sees. Each call is marked with `file` while
   * it runs (synchronously), so the program's own registrations made while an async
   * `setup` awaits are never taken for the file's.
   */
  #registrar(file: string): Registrar {
    const asFile = (register: () => void): Registrar => {
      const previous = this.#loading;
      this.#loading = file;
      try {
        register();
      } finally {
        this.#loading = previous;
      }
      return registrar;
    };
    const registrar: Registrar = Object.freeze({
      tool: (tool: ExtensionTool) => asFile(() => this.tool(tool)),
      skill: (nameOrInit: string | ExtensionSkillInit, body?: string, description?: string) =>
        asFile(() => this.skill(nameOrInit, body, description)),
      command: (name: string, run: ExtensionCommand["run"], options?: { help?: string }) =>
        asFile(() => this.command(name, run, options)),
      on: <Event extends EventName>(event: Event, hook: Hook<Event>, info?: Partial<HookInfo>) =>
        asFile(() => this.on(event, hook, info)),
      approval: (policy: ApprovalPolicy) => asFile(() => this.approval(policy)),
    });
    return registrar;
  }
}

function withoutOrigin(info: Partial<HookInfo>): Omit<HookInfo, "origin"> {
  const { origin: _origin, ...rest } = info;
  return rest;
}
