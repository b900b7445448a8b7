import type { JsonValue } from "../../core/safe-json.js";
import type {
  CapabilityPermissions,
  CapabilityProvider,
  InvocationContext,
  SkillDescriptor,
} from "../types.js";
import { LuaSkillError } from "./lua-errors.js";
import type { LuaRuntime } from "./lua-runtime.js";

/**
 * A {@link CapabilityProvider} for one generation of a `lua_skill`: `invoke` calls the
 * manifest's `entry` function with `(ctx, payload)` in that generation's state and returns
 * its table as JSON; {@link healthCheck} calls `health_check`. The call runs under the
 * narrower of the call's and the provider's effective permissions.
 *
 * Drain: the generation counts calls from `invoke` to its answer. A call that reaches a
 * provider whose generation has already been drained and closed (it was routed just before
 * the switch and waited in the pipeline) is handed to the successor, and answered wholly
 * there: {@link invokeWithGeneration} says which generation answered.
 */

/** What the provider needs from the manifest, beyond the descriptor. */
export interface LuaSkillEntry {
  /** The function called for each invocation. */
  readonly entry: string;
  /** The function called before a generation is installed; none means healthy once loaded. */
  readonly healthCheck?: string;
}

/** A provider of one generation. */
export class LuaCapabilityProvider implements CapabilityProvider {
  readonly descriptor: SkillDescriptor;
  readonly permissions: CapabilityPermissions;
  readonly generation: number;
  readonly runtime: LuaRuntime;
  readonly #entry: LuaSkillEntry;
  #calls = 0;
  #idleWaiters: (() => void)[] = [];
  #successor: LuaCapabilityProvider | undefined;
  #retired = false;

  constructor(
    descriptor: SkillDescriptor,
    permissions: CapabilityPermissions,
    entry: LuaSkillEntry,
    runtime: LuaRuntime,
    generation: number,
  ) {
    this.descriptor = descriptor;
    this.permissions = permissions;
    this.#entry = entry;
    this.runtime = runtime;
    this.generation = generation;
  }

  /** Runs one call (the pipeline checked the input; it checks the output). */
  async invoke(
    payload: { readonly [key: string]: JsonValue },
    context: InvocationContext,
  ): Promise<JsonValue> {
    return (await this.invokeWithGeneration(payload, context)).value;
  }

  /** Like {@link invoke}, saying which generation answered. */
  async invokeWithGeneration(
    payload: { readonly [key: string]: JsonValue },
    context: InvocationContext,
  ): Promise<{ generation: number; value: JsonValue }> {
    if (this.#retired) {
      if (this.#successor === undefined)
        throw new LuaSkillError(
          "lua_state_closed",
          this.descriptor.id,
          `generation ${this.generation} is closed`,
        );
      return this.#successor.invokeWithGeneration(payload, context);
    }
    this.#calls += 1;
    try {
      const value = await this.runtime.call(this.#entry.entry, payload, {
        context,
        timeoutMs: this.descriptor.limits.timeoutMs,
        roots: {
          ...(context.workspace === undefined ? {} : { workspace: context.workspace }),
          read: narrow(context.permissions.fsRead, this.permissions.fsRead),
          write: narrow(context.permissions.fsWrite, this.permissions.fsWrite),
        },
        allowedCapabilities: narrow(
          context.permissions.adapterCapabilities,
          this.permissions.adapterCapabilities,
        ),
        provider: this,
      });
      return { generation: this.generation, value };
    } finally {
      this.#calls -= 1;
      if (this.#calls === 0) for (const waiter of this.#idleWaiters.splice(0)) waiter();
    }
  }

  /** Runs `health_check(ctx)`; healthy unless it raises or returns `false` (or `{ok = false}`). */
  async healthCheck(context: InvocationContext): Promise<{ ok: boolean; detail: string }> {
    const name = this.#entry.healthCheck;
    if (!this.runtime.hasFunction(this.#entry.entry))
      return { ok: false, detail: `the script defines no entry function ${this.#entry.entry}` };
    if (name === undefined) return { ok: true, detail: "no health_check declared" };
    try {
      const value = await this.runtime.call(
        name,
        {},
        {
          context,
          timeoutMs: this.descriptor.limits.timeoutMs,
          roots: { read: [], write: [] },
          allowedCapabilities: [],
        },
      );
      const failed =
        value === false ||
        (typeof value === "object" && value !== null && "ok" in value && value.ok === false);
      return failed
        ? { ok: false, detail: `${name} returned ${JSON.stringify(value)}` }
        : { ok: true, detail: "healthy" };
    } catch (error) {
      return { ok: false, detail: (error as Error).message };
    }
  }

  /** Calls between `invoke` and its answer. */
  get calls(): number {
    return this.#calls;
  }

  /**
   * Drains and closes this generation: waits for its calls, closes its state, and hands any
   * later call to `successor`.
   */
  async retire(successor: LuaCapabilityProvider | undefined): Promise<void> {
    this.#successor = successor;
    this.#retired = true;
    if (this.#calls > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    await this.runtime.drained();
    this.runtime.close();
  }
}

/** The roots or names in both lists (`workspace` is a name like any other). */
function narrow(call: readonly string[], provider: readonly string[]): string[] {
  return call.filter((item) => provider.includes(item));
}
