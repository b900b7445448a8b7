import type { Command } from "commander";
import { runSkillgateDoctor, type SkillgateDoctorReport } from "../../../app/doctor.js";
import type { InterpreterHealth } from "../../../runners/sandbox/interpreter-health.js";
import { mcpSelfCheck } from "../../mcp/self-check.js";
import { type GlobalOptions, skillgateOptions } from "../context.js";
import { type CliOutput, paint, printJson } from "../output.js";

/** `skillgate doctor [--json]`: folders, counts, every problem with its fix; exit 1 on problems. */
export function registerDoctor(program: Command, output: CliOutput): void {
  program
    .command("doctor")
    .description(
      "check the setup: folders searched, skills per decision, every problem and how to fix it (exit 1 on problems)",
    )
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const base = await runSkillgateDoctor(skillgateOptions(command));
      // A broken configuration is already the report's problem; skillgate mcp would only repeat it.
      const report = withMcpCheck(base, base.configFile === "" ? undefined : await checkMcp(command));
      process.exitCode = report.ok ? 0 : 1;
      if (options.json) {
        printJson(output, report);
        return;
      }
      const lines: string[] = [];
      for (const check of report.checks) lines.push(`${mark(output, check.ok)} ${check.detail}`);
      if (report.configFile)
        lines.push(`  config file: ${report.configFile}`, `  data folder: ${report.dataFolder}`);
      lines.push("", paint(output, "bold", "Skill folders (lowest precedence first):"));
      for (const folder of report.folders) {
        const state = folder.exists ? `${folder.found} found` : paint(output, "dim", "missing");
        lines.push(
          `  ${folder.exists ? paint(output, "green", "✓") : paint(output, "dim", "·")} ${folder.folder}  ${state}  (${folder.reason})`,
        );
      }
      const missingUser = report.folders.find((folder) => folder.kind === "user" && !folder.exists);
      if (missingUser)
        lines.push(
          paint(
            output,
            "dim",
            `  to add your own skills: mkdir -p ${missingUser.folder}/my-skill and write my-skill/SKILL.md`,
          ),
        );
      if (report.notSearched.length > 0) {
        lines.push("", paint(output, "bold", "Not searched or not loaded:"));
        for (const entry of report.notSearched)
          lines.push(`  ${entry.folder}: ${entry.message} (${entry.reason})`);
      }
      lines.push("", paint(output, "bold", "Decisions:"));
      lines.push(
        `  ${Object.entries(report.counts)
          .map(([kind, count]) => `${kind} ${count}`)
          .join(", ")}`,
      );
      const capabilities = report.capabilities;
      if (capabilities !== undefined) {
        lines.push("", paint(output, "bold", "Capabilities (normal runtime):"));
        lines.push(
          `  ${Object.entries(capabilities.counts)
            .map(([kind, count]) => `${kind} ${count}`)
            .join(", ")}`,
        );
        for (const folder of capabilities.manifestFolders)
          lines.push(
            `  ${folder.exists ? paint(output, "green", "✓") : paint(output, "dim", "·")} ${folder.folder}  ${folder.exists ? `${folder.found} manifest(s)` : paint(output, "dim", "missing")}  (${folder.scope} ${folder.kind})`,
          );
      }
      lines.push("", paint(output, "bold", "Sandbox:"));
      const sandbox = report.sandbox;
      lines.push(
        `  ${mark(output, sandbox.ok)} bubblewrap ${sandbox.bubblewrap.found ? `${sandbox.bubblewrap.version ?? ""} at ${sandbox.bubblewrap.path ?? "?"}` : "not installed"}; user namespaces ${sandbox.userNamespaces.usable ? "usable" : `not usable (${sandbox.userNamespaces.detail})`}`,
      );
      for (const [limit, enforcement] of Object.entries(sandbox.limits)) {
        lines.push(
          `  ${limit.padEnd(10)} ${enforcement.by === "none" ? paint(output, "yellow", "not enforced") : `by ${enforcement.by}`}: ${enforcement.detail}`,
        );
      }
      for (const advice of sandbox.advice)
        lines.push(`  ${paint(output, "dim", `to get the rest: ${advice}`)}`);
      lines.push("", paint(output, "bold", "Interpreters:"));
      for (const interpreter of report.interpreters) lines.push(...interpreterLines(output, interpreter));
      const errors = report.problems.filter((problem) => problem.severity === "error");
      const warnings = report.problems.filter((problem) => problem.severity === "warning");
      lines.push(
        "",
        paint(output, "bold", `Problems: ${errors.length} error(s), ${warnings.length} warning(s)`),
      );
      for (const problem of [...errors, ...warnings]) {
        const label =
          problem.severity === "error" ? paint(output, "red", "error") : paint(output, "yellow", "warning");
        lines.push(`  ${label} ${problem.subject}: ${problem.code}: ${problem.message}`);
        if (problem.location) lines.push(`      at ${problem.location}`);
        lines.push(`      fix: ${problem.fix}`);
      }
      if (report.problems.length === 0) lines.push("  none");
      output.out(`${lines.join("\n")}\n`);
    });
}

/** Starts `skillgate mcp` with the same global flags and expects it to answer `initialize`. */
async function checkMcp(command: Command): Promise<{ ok: boolean; detail: string }> {
  const options = command.optsWithGlobals<GlobalOptions>();
  const globalArguments = [
    ...(options.root ?? []).flatMap((root) => ["--root", root]),
    ...(options.config !== undefined ? ["--config", options.config] : []),
    ...(options.data !== undefined ? ["--data", options.data] : []),
    ...(options.builtins === false ? ["--no-builtins"] : []),
    ...(options.projectExtensions === true ? ["--project-extensions"] : []),
  ];
  return mcpSelfCheck({ globalArguments });
}

/** The report with the MCP check among its checks, and a problem when `skillgate mcp` did not start. */
function withMcpCheck(
  report: SkillgateDoctorReport,
  mcp: { ok: boolean; detail: string } | undefined,
): SkillgateDoctorReport {
  if (mcp === undefined)
    return {
      ...report,
      checks: [
        ...report.checks,
        { name: "mcp", ok: false, detail: "skillgate mcp not tried: fix the configuration first" },
      ],
    };
  const checks = [...report.checks, { name: "mcp", ok: mcp.ok, detail: mcp.detail }];
  if (mcp.ok) return { ...report, checks };
  return {
    ...report,
    ok: false,
    checks,
    problems: [
      ...report.problems,
      {
        severity: "error",
        code: "mcp_unavailable",
        subject: "mcp",
        message: mcp.detail,
        fix: "run skillgate mcp yourself and read what it prints on stderr",
      },
    ],
  };
}

/** One interpreter: what runs each language, from where, and what the sandbox binds for it. */
function interpreterLines(output: CliOutput, interpreter: InterpreterHealth): string[] {
  const languages = interpreter.languages.join(", ");
  if (interpreter.executable === undefined)
    return [`  ${mark(output, false)} ${languages}: ${interpreter.problem ?? "not found"}`];
  const version = interpreter.version !== undefined ? ` ${interpreter.version}` : "";
  const from =
    interpreter.source === "config"
      ? "runners.interpreters"
      : interpreter.viaShim === true
        ? `PATH, through ${interpreter.found}`
        : "PATH";
  const lines = [
    `  ${mark(output, interpreter.ok)} ${languages}: ${interpreter.executable}${version} (from ${from})`,
  ];
  const base = interpreter.basePrefix !== undefined ? `, base prefix ${interpreter.basePrefix}` : "";
  lines.push(`      prefix ${interpreter.prefix ?? "?"}${base}`);
  if (interpreter.mounts.length === 0) lines.push("      mounted: nothing more (it is under /usr)");
  for (const mount of interpreter.mounts) {
    const where = mount.target === mount.source ? mount.source : `${mount.source} at ${mount.target}`;
    lines.push(
      `      mounted read-only: ${where}${mount.throughPortal === true ? " (through the root-only portal)" : mount.reachable ? "" : ` ${paint(output, "red", "(not readable by the sandbox user)")}`}`,
    );
  }
  if (interpreter.problem !== undefined) lines.push(`      ${paint(output, "yellow", interpreter.problem)}`);
  return lines;
}

function mark(output: CliOutput, ok: boolean): string {
  return ok ? paint(output, "green", "✓") : paint(output, "red", "✗");
}
