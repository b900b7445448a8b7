import type { CatalogOptions } from "../catalog/catalog.js";
import { type DoctorProblem, type DoctorReport, runDoctor } from "../catalog/doctor.js";
import { type SandboxHealth, sandboxHealth } from "../runners/sandbox/health.js";

/** The doctor's report with the sandbox's health: which limits this host enforces and how. */
export interface SkillgateDoctorReport extends DoctorReport {
  readonly sandbox: SandboxHealth;
}

/**
 * Every check `skillgate doctor` makes: the catalog's (folders, decisions, problems) and
 * the sandbox's (bubblewrap, user namespaces, helper tools, limits). A sandbox that cannot
 * run is a problem: `sandbox` is the default execution mode.
 */
export async function runSkillgateDoctor(options: CatalogOptions): Promise<SkillgateDoctorReport> {
  const report = runDoctor(options);
  const sandbox = await sandboxHealth();
  if (sandbox.ok) return { ...report, sandbox };
  const problem: DoctorProblem = {
    severity: "error",
    code: "sandbox_unavailable",
    subject: "sandbox",
    message: sandbox.bubblewrap.found
      ? `sandboxed scripts cannot run here: ${sandbox.userNamespaces.detail}`
      : "sandboxed scripts cannot run here: bubblewrap is not installed",
    fix: sandbox.advice.join(" ") || "run scripts/install-test-deps.sh (or apt-get install bubblewrap socat)",
  };
  return { ...report, ok: false, problems: [...report.problems, problem], sandbox };
}
