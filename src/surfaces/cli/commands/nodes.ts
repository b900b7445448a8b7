import type { Command } from "commander";
import { resolveFolders } from "../../../core/folders.js";
import { escapeTerminalControls } from "../../../core/terminal-text.js";
import { type LiveStateDocument, readLiveState } from "../../../nodes/controller/live-state-file.js";
import type { NodeState } from "../../../nodes/controller/node-hub.js";
import { type NodeEntry, NodeRegistry } from "../../../nodes/controller/node-registry.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, paint, printJson, table } from "../output.js";

/** The address `skillgate serve` listens on by default, for the agent command when no server has said its own. */
const DEFAULT_CONTROLLER_URL = "http://127.0.0.1:3917";

/**
 * `skillgate nodes add|list|remove|sync`: the named servers of this controller (docs/nodes.md,
 * "Enrolment" and "The controller"). The commands work on the registry in the data folder
 * directly, whether or not `skillgate serve` runs: a running server sees a change on its next
 * tick (a removed node's channel is closed, a sync request is sent), and `list` shows the live
 * state the server writes to `<data>/nodes/live.json`.
 */
export function registerNodes(program: Command, output: CliOutput): void {
  const nodes = program
    .command("nodes")
    .description("manage the named servers scripts can run on (node agents)");

  nodes
    .command("add")
    .description("add a node: prints its one-time enrolment token and the command that starts its agent")
    .argument("<name>", "the node's name: lower-case letters, digits and -")
    .option("--worker", "a remote queue worker instead of a named server")
    .option("--controller <url>", "the controller URL the agent connects to (default: the running server's)")
    .option("--json", "print JSON")
    .action(
      async (
        name: string,
        options: { worker?: boolean; controller?: string; json?: boolean },
        command: Command,
      ) => {
        const { registry, data } = registryOf(command);
        const added = await registry.add(name, { role: options.worker === true ? "worker" : "node" });
        const controller =
          options.controller ?? readLiveState(data, Date.now())?.url ?? DEFAULT_CONTROLLER_URL;
        const agent = `skillgate node-agent --controller ${controller} --name ${added.node.name} --enrol ${added.token}`;
        if (options.json)
          return printJson(output, {
            node: added.node,
            token: added.token,
            expiresAt: added.expiresAt,
            command: agent,
          });
        output.out(
          [
            `added ${added.node.role === "worker" ? "worker" : "node"} ${added.node.name}. Its enrolment token, shown this once (valid until ${added.expiresAt}):`,
            "",
            `  ${added.token}`,
            "",
            "On the node, run:",
            "",
            `  ${agent}`,
            "",
            paint(
              output,
              "dim",
              "the token is used once; the agent keeps the credential it gets for later starts\n",
            ),
          ].join("\n"),
        );
      },
    );

  nodes
    .command("list")
    .description("list nodes: role, online, last heartbeat, features, skills held, runs in flight")
    .option("--json", "print JSON")
    .action((options: { json?: boolean }, command: Command) => {
      const { registry, data } = registryOf(command);
      const live = readLiveState(data, Date.now());
      const states = registry.list().map((entry) => stateOf(entry, live));
      if (options.json) return printJson(output, { serving: live?.serving ?? false, nodes: states });
      if (states.length === 0) {
        output.out("No nodes. Add one with: skillgate nodes add NAME\n");
        return;
      }
      const rows = states.map((state) => [
        state.name,
        state.role,
        !state.enrolled ? (state.locked ? "locked" : "not enrolled") : state.online ? "online" : "offline",
        state.lastHeartbeatAt ?? "never",
        state.features.length > 0 ? nodeText(state.features.join(",")) : "-",
        heldText(state.skills),
        String(state.runsInFlight),
      ]);
      output.out(
        `${table(
          output,
          ["NAME", "ROLE", "STATE", "LAST HEARTBEAT", "FEATURES", "SKILLS HELD", "RUNS"],
          rows,
          (row, column) => (column === 2 ? (rows[row]?.[2] === "online" ? "green" : "yellow") : undefined),
        )}\n`,
      );
      if (live?.serving !== true)
        output.out(
          paint(
            output,
            "dim",
            "no running skillgate serve has reported on this data folder: every node shows offline\n",
          ),
        );
    });

  nodes
    .command("remove")
    .description("remove a node: its credential stops working; a running server closes its channel")
    .argument("<name>")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const removed = await registryOf(command).registry.remove(name);
      if (options.json) return printJson(output, { node: removed });
      output.out(`removed ${removed.name}: its credential no longer works; add it again to enrol anew\n`);
    });

  nodes
    .command("sync")
    .description("ask a node to run SkillSync now (through the running server)")
    .argument("<name>")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const { registry, data } = registryOf(command);
      const node = await registry.requestSync(name);
      const serving = readLiveState(data, Date.now())?.serving === true;
      if (options.json) return printJson(output, { node, serving });
      output.out(
        serving
          ? `asked ${node.name} to sync: the running server sends it within a second\n`
          : `recorded a sync request for ${node.name}; no server is running, so it is sent when skillgate serve starts and the node connects (agents also sync every minute)\n`,
      );
    });
}

function registryOf(command: Command): { registry: NodeRegistry; data: string } {
  const data = resolveFolders(skillgateOptions(command)).data;
  return { registry: new NodeRegistry({ dataFolder: data }), data };
}

/** A registry entry joined with the live state a server wrote (offline with nothing known when none did). */
function stateOf(entry: NodeEntry, live: LiveStateDocument | undefined): NodeState {
  const seen = live?.nodes.find((node) => node.name === entry.name);
  return {
    features: [],
    skills: {},
    runsInFlight: 0,
    ...seen,
    ...entry,
    online: seen?.online === true,
    connected: seen?.connected === true,
  };
}

/**
 * Text a node sent (its heartbeat's features and skill names), as a table cell on a person's
 * terminal: a compromised node must not be able to drive the terminal or break the table, so
 * controls are shown escaped and newlines and tabs become spaces.
 */
function nodeText(text: string): string {
  return escapeTerminalControls(text).replace(/[\n\t]/g, " ");
}

function heldText(skills: Readonly<Record<string, string>>): string {
  const names = Object.entries(skills).map(([name, hash]) => nodeText(`${name}@${hash.slice(0, 8)}`));
  if (names.length === 0) return "-";
  return names.length <= 3 ? names.join(",") : `${names.slice(0, 3).join(",")} +${names.length - 3}`;
}
