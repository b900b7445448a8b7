import { describeError } from "../core/errors.js";
import { MAX_SKILL_CHARS } from "../core/limits.js";
import { sliceAtCodePoint } from "../core/text.js";
import { describeSkillBody } from "./describe.js";
import type { SkillFields } from "./fields.js";
import { DEFAULT_GOVERNANCE, type Governance } from "./governance.js";

/**
 * Where a skill's body comes from: text, or a function that reads it when asked. The
 * function is called as a method of the skill (`this` is the skill), so one function can
 * serve many skills (discovery reads every body from the skill's `where`).
 */
export type SkillBodySource = string | ((this: Skill) => string);

/** What a Skill is made from. Only `name` and `source` are required (docs/skills.md, "A skill"). */
export interface SkillInit {
  readonly name: string;
  /** Which source found it: `builtin`, `package`, `learned`, `config`, `user`, `project`, `caller`, or an extension's name. */
  readonly source: string;
  /** When it applies. Empty means: the body's first paragraph. */
  readonly description?: string;
  /** A location a person can open: the SKILL.md path, or a package and path. */
  readonly where?: string;
  /** The skill's folder, for skills that live on disk. */
  readonly directory?: string;
  readonly body?: SkillBodySource;
  readonly fields?: SkillFields;
  readonly governance?: Governance;
}

/**
 * One skill: its name, where it came from, when it applies, and a way to load its full
 * text. It holds a loader, not the body, so finding skills never reads bodies.
 */
export class Skill {
  readonly name: string;
  readonly source: string;
  readonly description: string;
  readonly where: string;
  readonly directory: string | undefined;
  readonly fields: SkillFields | undefined;
  readonly governance: Governance;
  readonly #body: SkillBodySource | undefined;

  constructor(init: SkillInit) {
    this.name = init.name;
    this.source = init.source;
    this.where = init.where ?? "";
    this.directory = init.directory;
    this.fields = init.fields;
    this.governance = init.governance ?? DEFAULT_GOVERNANCE;
    this.#body = init.body;
    this.description =
      init.description !== undefined && init.description !== "" ? init.description : this.#describeBody();
  }

  /**
   * The body, clipped to {@link MAX_SKILL_CHARS} with `\n…[N more chars]`. A body that
   * cannot be read gives `could not read skill NAME: ErrorName: message`, never an exception.
   */
  text(): string {
    const read = this.#read();
    if (!read.ok) return `could not read skill ${this.name}: ${read.message}`;
    const body = read.body;
    if (body.length <= MAX_SKILL_CHARS) return body;
    const kept = sliceAtCodePoint(body, MAX_SKILL_CHARS);
    return `${kept}\n…[${body.length - kept.length} more chars]`;
  }

  /** The plain data of a skill, for JSON output. */
  toJSON(): { name: string; source: string; description: string; where: string } {
    return { name: this.name, source: this.source, description: this.description, where: this.where };
  }

  #read(): { ok: true; body: string } | { ok: false; message: string } {
    try {
      // Called as a method: `this` is the skill (see SkillBodySource).
      const body = typeof this.#body === "function" ? this.#body() : (this.#body ?? "");
      return { ok: true, body };
    } catch (error) {
      return { ok: false, message: describeError(error) };
    }
  }

  #describeBody(): string {
    const read = this.#read();
    return read.ok ? describeSkillBody(read.body) : "";
  }
}
