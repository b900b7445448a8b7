import {
  type CapabilityDoctorSection,
  capabilityDoctorProblems,
  capabilityDoctorSection,
} from "../capabilities/doctor-problems.js";
import { type DoctorProblem, type DoctorReport, runDoctor } from "../catalog/doctor.js";
import { isSkillgateError } from "../core/errors.js";
import type { ExtensionProblem } from "../extensions/load.js";
import { type SandboxHealth, sandboxHealth } from "../runners/sandbox/health.js";
import { type InterpreterHealth, interpreterHealth } from "../runners/sandbox/interpreter-health.js";
import { bootstrapCatalog } from "./bootstrap.js";
import { inspectSetupCapabilities } from "./capability-setup.js";
import {
  type CatalogSetup,
  type CatalogSetupOptions,
  extraSkills,
  withStoreSource,
} from "./catalog-setup.js";

/** The doctor's report with the sandbox's health: which limits this host enforces and how. */
export interface SkillgateDoctorReport extends DoctorReport {
  readonly sandbox: SandboxHealth;
  /** The interpreter each language runs with and what the sandbox binds for it (docs/running-scripts.md, "Interpreters"). */
  readonly interpreters: readonly InterpreterHealth[];
  /** Capability decisions by status and the manifest folders read (docs/capabilities.md); absent with a broken configuration. */
  readonly capabilities?: CapabilityDoctorSection;
}

/**
 * Every check `skillgate doctor` makes: the catalog's (folders, decisions, problems) with the
 * extensions loaded through the bootstrap, so their skills are counted and an extension or
 * hooks file that could not be used is an error; and the sandbox's (bubblewrap, user
 * namespaces, helper tools, limits). A sandbox that cannot run is a problem: `sandbox` is the
 * default execution mode.
 */
export async function runSkillgateDoctor(options: CatalogSetupOptions): Promise<SkillgateDoctorReport> {
  const setup = await catalogSetupOrNone(options);
  const catalogReport =
    setup === undefined
      ? // A malformed configuration: the catalog's doctor reports it as the problem.
        runDoctor(withStoreSource(options))
      : withExtensionProblems(
          runDoctor({
            ...withStoreSource(options),
            extra: extraSkills(options.extra, setup.extensions.registry),
          }),
          setup.extensions.problems,
        );
  const sandbox = await sandboxHealth();
  const interpreters = interpreterHealth({
    ...(setup !== undefined
      ? { configuredInterpreters: () => setup.catalog.config.runners.interpreters }
      : {}),
    protectedFolders: [catalogReport.dataFolder],
  });
  const withCapabilities = withCapabilityProblems(
    withInterpreterProblems(catalogReport, interpreters),
    setup,
    options.projectExtensions,
  );
  const { capabilities, report: withInterpreters } = withCapabilities;
  const extra = capabilities !== undefined ? { capabilities } : {};
  if (sandbox.ok) return { ...withInterpreters, sandbox, interpreters, ...extra };
  const problem: DoctorProblem = {
    severity: "error",
    code: "sandbox_unavailable",
    subject: "sandbox",
    message: sandbox.bubblewrap.found
      ? `sandboxed scripts cannot run here: ${sandbox.userNamespaces.detail}`
      : "sandboxed scripts cannot run here: bubblewrap is not installed",
    fix: sandbox.advice.join(" ") || "run scripts/install-test-deps.sh (or apt-get install bubblewrap socat)",
  };
  return {
    ...withInterpreters,
    ok: false,
    problems: [...withInterpreters.problems, problem],
    sandbox,
    interpreters,
    ...extra,
  };
}

/** The report with the capability plane's problems, and its section (none without a catalog). */
function withCapabilityProblems(
  report: DoctorReport,
  setup: CatalogSetup | undefined,
  projectExtensions: boolean | undefined,
): { report: DoctorReport; capabilities: CapabilityDoctorSection | undefined } {
  if (setup === undefined) return { report, capabilities: undefined };
  const inspection = inspectSetupCapabilities(setup, {
    ...(projectExtensions !== undefined ? { projectExtensions } : {}),
  });
  const problems = capabilityDoctorProblems(inspection);
  return {
    report: {
      ...report,
      ok: report.ok && !problems.some((item) => item.severity === "error"),
      problems: [...report.problems, ...problems],
    },
    capabilities: capabilityDoctorSection(inspection),
  };
}

/**
 * A warning per interpreter that cannot run sandboxed scripts: a host may not need every
 * language, so it is not an error, but a skill in that language will be refused.
 */
function withInterpreterProblems(
  report: DoctorReport,
  interpreters: readonly InterpreterHealth[],
): DoctorReport {
  const problems = interpreters.flatMap((interpreter): DoctorProblem[] =>
    interpreter.problem === undefined
      ? []
      : [
          {
            severity: "warning",
            code: "interpreter_unavailable",
            subject: interpreter.program,
            message: interpreter.problem,
            fix:
              interpreter.found === undefined
                ? `install ${interpreter.program}, or set runners.interpreters.${interpreter.languages[0]} in config.yaml to its absolute path`
                : `make the interpreter's folders readable by others, or set runners.interpreters.${interpreter.languages[0]} in config.yaml to one the sandbox can read (e.g. /usr/bin/${interpreter.program})`,
          },
        ],
  );
  return problems.length === 0 ? report : { ...report, problems: [...report.problems, ...problems] };
}

async function catalogSetupOrNone(options: CatalogSetupOptions): Promise<CatalogSetup | undefined> {
  try {
    return await bootstrapCatalog(options);
  } catch (error) {
    if (isSkillgateError(error) && error.code === "invalid_config") return undefined;
    throw error;
  }
}

/** The report with one error per extension or hooks file that could not be used. */
function withExtensionProblems(report: DoctorReport, problems: readonly ExtensionProblem[]): DoctorReport {
  if (problems.length === 0) return report;
  return {
    ...report,
    ok: false,
    problems: [
      ...report.problems,
      ...problems.map(
        (problem): DoctorProblem => ({
          severity: "error",
          code: problem.code,
          subject: "extensions",
          message: problem.message,
          fix:
            problem.code === "extension_failed"
              ? "fix the file's error (skillgate extensions shows it), or move the file out of the folder"
              : "fix the hooks file (see docs/hooks.md for its shape), or move it aside",
          location: problem.file,
        }),
      ),
    ],
  };
}
