import type { Command } from "commander";
import type { CliOutput } from "./output.js";

/** What each command module exports: adds its command(s) to the program. */
export type RegisterCommand = (program: Command, output: CliOutput) => void;

/**
 * Every top-level command, by name, with the module that registers it, in the order `--help`
 * lists them. A module is imported only when its command runs (or for help), so each command
 * loads what it uses and no more: `list` never loads the MCP SDK, `--version` loads no command.
 */
const COMMAND_MODULES: ReadonlyArray<{ names: readonly string[]; load: () => Promise<RegisterCommand> }> = [
  { names: ["list"], load: async () => (await import("./commands/list.js")).registerList },
  { names: ["explain"], load: async () => (await import("./commands/explain.js")).registerExplain },
  { names: ["doctor"], load: async () => (await import("./commands/doctor.js")).registerDoctor },
  {
    names: ["capability"],
    load: async () => (await import("./commands/capability.js")).registerCapability,
  },
  { names: ["index"], load: async () => (await import("./commands/index-command.js")).registerIndex },
  { names: ["search"], load: async () => (await import("./commands/search.js")).registerSearch },
  { names: ["validate"], load: async () => (await import("./commands/validate.js")).registerValidate },
  { names: ["paths"], load: async () => (await import("./commands/paths.js")).registerPaths },
  { names: ["store"], load: async () => (await import("./commands/store.js")).registerStore },
  { names: ["audit"], load: async () => (await import("./commands/audit.js")).registerAudit },
  { names: ["run"], load: async () => (await import("./commands/run.js")).registerRun },
  { names: ["deps"], load: async () => (await import("./commands/deps.js")).registerDeps },
  { names: ["invoke"], load: async () => (await import("./commands/invoke.js")).registerInvoke },
  {
    names: ["extensions", "hooks", "commands", "command"],
    load: async () => (await import("./commands/extensions.js")).registerExtensions,
  },
  { names: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcp },
  { names: ["serve"], load: async () => (await import("./commands/serve.js")).registerServe },
  { names: ["node-agent"], load: async () => (await import("./commands/node-agent.js")).registerNodeAgent },
  { names: ["nodes"], load: async () => (await import("./commands/nodes.js")).registerNodes },
  { names: ["worker"], load: async () => (await import("./commands/worker.js")).registerWorker },
  { names: ["queue"], load: async () => (await import("./commands/queue.js")).registerQueue },
  {
    names: ["generations"],
    load: async () => (await import("./commands/generations.js")).registerGenerations,
  },
  {
    names: ["approvals", "approve", "decline"],
    load: async () => (await import("./commands/approvals.js")).registerApprovals,
  },
];

/** Global options that take a value: what follows them is not a command name. */
const VALUE_OPTIONS = new Set(["-r", "--root", "--config", "--data"]);

/**
 * The register functions `argv` needs: the named command's module alone; none for
 * `--version` without a command; every module otherwise (help lists every command, and an
 * unknown command's error suggests the nearest real one).
 */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const words = positionalWords(argv);
  const named = words[0] === "help" ? words[1] : words[0];
  const entry = named === undefined ? undefined : COMMAND_MODULES.find((item) => item.names.includes(named));
  if (entry !== undefined) return [await entry.load()];
  if (named === undefined && words[0] === undefined && asksForVersion(argv)) return [];
  return Promise.all(COMMAND_MODULES.map((item) => item.load()));
}

/** The words of `argv` before `--` that are neither options nor global options' values. */
function positionalWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index] ?? "";
    if (word === "--") break;
    if (word.startsWith("-")) {
      if (VALUE_OPTIONS.has(word)) index += 1;
      continue;
    }
    words.push(word);
  }
  return words;
}

function asksForVersion(argv: readonly string[]): boolean {
  return argv.includes("-V") || argv.includes("--version");
}
