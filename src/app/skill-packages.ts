import type { ApprovalRequest } from "../policy/approvals.js";
import type { RunResult } from "../runners/contract.js";
import type { PackageEnvironment } from "../runners/environments/environment-store.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { declaresPackages } from "../skill/packages/declared.js";
import { offeredSkill } from "../tools/skill-tools.js";
import { bootstrapSkillgate } from "./bootstrap.js";
import type { SkillgateOptions } from "./skillgate.js";

/** `skillgate deps SKILL [--rebuild]`: build a skill's package environment ahead of its first run. */
export interface BuildSkillPackagesInput {
  readonly skill: string;
  /** Remove the hash's environment first and build it anew. */
  readonly rebuild?: boolean;
  /** Approve the build without asking (`--yes`). */
  readonly approved?: boolean;
  /** Puts the ask to the person: true approves. Without it (and without `approved`) the build is declined. */
  readonly ask?: (request: ApprovalRequest) => Promise<boolean>;
  readonly signal?: AbortSignal;
}

/** How `deps` ended: the environment, or why there is none; `text` is what the person is shown. */
export type BuildSkillPackagesOutcome =
  | { readonly status: "built" | "reused"; readonly environment: PackageEnvironment; readonly text: string }
  | { readonly status: "none" | "declined" | "refused"; readonly text: string; readonly run?: RunResult };

/**
 * Builds the package environment of a skill at its current hash, by the rules a run's build
 * follows (docs/running-scripts.md, "Packages"): only a skill this host offers, its
 * declarations read from its verified snapshot, the same ask (what is installed, from
 * where) before anything runs, the same sandboxed build. An existing environment is reused
 * unless `rebuild`.
 */
export async function buildSkillPackages(
  options: SkillgateOptions,
  input: BuildSkillPackagesInput,
): Promise<BuildSkillPackagesOutcome> {
  const skillgate = await bootstrapSkillgate(options);
  try {
    const turn = skillgate.createTurn({ chatId: "cli" });
    const found = offeredSkill(turn.view, input.skill);
    if (!found.ok) return { status: "refused", text: found.message };
    const skill = found.skill;
    const hash = skill.directory !== undefined ? hashSkillFolder(skill.directory).hash : undefined;
    if (skill.directory === undefined || hash === undefined)
      return { status: "refused", text: `HOST: ${skill.name} cannot be read right now.` };
    const packages = skillgate.packages;
    const declared = packages.declared(skill.directory);
    const problems = declared.diagnostics.filter((item) => item.severity === "error");
    if (problems.length > 0)
      return {
        status: "refused",
        text: `HOST: ${skill.name}'s package declarations have problems: ${problems.map((item) => item.message).join(" ")} [invalid_package_declaration]`,
      };
    if (!declaresPackages(declared)) return { status: "none", text: `${skill.name} declares no packages.` };
    const existing = packages.find(hash);
    if (existing !== undefined && input.rebuild !== true)
      return {
        status: "reused",
        environment: existing,
        text: `${skill.name}: its environment is built (${existing.folder}).`,
      };
    const request = skillgate.broker.approvals.open({
      tool: "skillgate deps",
      tier: "change",
      scope: { kind: "chat", id: "cli" },
      summary: `build the package environment of ${skill.name}`,
      skill: skill.name,
      hash,
      detail: packages.describeBuild(skill.name, declared),
      reference: `environment:${hash}`,
    });
    const approved = input.approved === true || (input.ask !== undefined && (await input.ask(request)));
    skillgate.broker.approvals.answer(request.id, approved ? "once" : "decline");
    if (!approved)
      return {
        status: "declined",
        text: `HOST: the build of ${skill.name}'s packages was declined; nothing was installed.`,
      };
    const built = await packages.ensure(
      {
        skill: skill.name,
        hash,
        folder: skill.directory,
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      },
      input.rebuild === true,
    );
    if (!built.ok)
      return {
        status: "refused",
        text: built.result.message ?? "HOST: the build was refused.",
        run: built.result,
      };
    return {
      status: built.built ? "built" : "reused",
      environment: built.environment,
      text: `${skill.name}: environment ${built.built ? "built" : "reused"} in ${built.environment.folder} (log: ${built.environment.log}).`,
    };
  } finally {
    skillgate.close();
  }
}
