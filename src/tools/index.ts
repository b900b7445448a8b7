/**
 * `skillgate/tools`: the model-facing tools and the broker every call goes through:
 * argument normalisation, hooks, turns. See docs/tools.md.
 */

export type { ArgumentRepair, NormalisedArguments } from "./arguments.js";
export { ARGUMENT_MESSAGES, normaliseArguments } from "./arguments.js";
export type { BrokerOptions, CallOptions, CallScope } from "./broker.js";
export { Broker } from "./broker.js";
export type { BeforeToolVerdict, CallHooks } from "./call-hooks.js";
export { APPROVAL_POLICY_RULE, HOOK_RULE, narrowByHooks } from "./call-hooks.js";
export { registryHooks } from "./extension-hooks.js";
export type { SkillScope } from "./skill-view.js";
export type { AnyTool, CallSubject, ToolDefinition, ToolOutput } from "./tool.js";
export type { TurnDependencies } from "./turn.js";
export { createTurn } from "./turn.js";
