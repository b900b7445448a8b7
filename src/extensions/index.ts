/**
 * `skillgate/extensions`: the registry extensions' `setup(reg)` receives, the event list,
 * loading extension files and shell hooks. See docs/extensions.md and docs/hooks.md.
 */

export type {
  AfterToolAnswer,
  AfterToolEvent,
  ApprovalEvent,
  BeforeToolAnswer,
  BeforeToolEvent,
  EventName,
  EventPayloads,
  EventScope,
  Hook,
} from "./events.js";
export { EVENTS, isEventName } from "./events.js";
export type { ExtensionSettings } from "./host.js";
export { ExtensionHost } from "./host.js";
export type { ExtensionFolderOptions, HooksFileLocation, LoadExtensionsOptions } from "./load.js";
export { EXTENSION_FILE_KINDS, extensionFolders, HOOKS_FILE, hooksFiles, loadExtensions } from "./load.js";
export type { RegisteredHook, RegistrySummary } from "./registry.js";
export { MAX_NOTES, Registry } from "./registry.js";
export type { ShellHookOptions } from "./shell-hooks.js";
export { loadShellHooks } from "./shell-hooks.js";
export type {
  ApprovalCall,
  ApprovalPolicy,
  ExtensionCommand,
  ExtensionSkillInit,
  ExtensionTool,
  ExtensionToolContext,
  ExtensionToolTier,
  HookInfo,
  Registrar,
} from "./types.js";
