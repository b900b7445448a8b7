import type { DoctorProblem } from "../catalog/doctor.js";
import type { CapabilityInspection, ManifestFolderReport } from "./discover.js";
import { statusCounts } from "./report.js";
import type { RegistrationStatus } from "./types.js";

/** What `skillgate doctor` adds about capabilities: counts by decision, the manifest folders, problems. */
export interface CapabilityDoctorSection {
  readonly counts: Readonly<Record<RegistrationStatus, number>>;
  readonly manifestFolders: readonly ManifestFolderReport[];
}

/** Fixes by problem code, for the doctor's `fix:` line. */
const FIXES: Readonly<Record<string, string>> = {
  missing_field: "add the field (docs/capabilities.md lists every field of both manifests)",
  invalid_field: "correct the value (docs/capabilities.md)",
  unknown_field: "remove the field, or check its spelling",
  invalid_manifest: "fix the YAML of the manifest",
  yaml_alias_limit: "write the values out instead of using YAML anchors and aliases",
  file_too_large: "keep manifests under 256 KiB; put large schemas in their own JSON files",
  unreadable_file: "check the file's permissions",
  invalid_schema: "give a valid JSON Schema 2020-12 document (an input schema must have type: object)",
  capability_missing_schema: "give the manifest both input_schema and output_schema",
  path_not_allowed:
    "keep paths inside the config folder, the skill folders, or (with the opt-in) the project",
  path_missing: "create the file, or correct the path",
  trust_level_unknown: "set skill.source to one of the documented sources (docs/capabilities.md)",
  policy_denied: "ask for less in permissions:, or allow it in config.yaml's capabilities.permissions",
  skill_not_found: "point skill.path at a SKILL.md inside a skills folder skillgate searches",
  skill_not_registered: "fix the skill itself first (skillgate explain NAME)",
  shadowed_by_precedence: "give one of the manifests another id",
  invalid_capability_name: "name capabilities like workflow.code_review (a Lua skill: workflow.* only)",
  no_capabilities: "list at least one capability",
};

/**
 * The doctor's problems about capabilities: each error of a manifest that was not
 * registered (so `doctor` exits 1 for a broken manifest), each warning of any manifest, and a
 * warning per manifests folder that had more files than are read. A bare SKILL.md being
 * display-only is how skills are, not a problem.
 */
export function capabilityDoctorProblems(inspection: CapabilityInspection): DoctorProblem[] {
  const problems: DoctorProblem[] = [];
  for (const item of inspection.decisions) {
    if (item.candidate.scope === "catalog") continue;
    const refused = item.decision.status === "rejected";
    for (const found of item.problems) {
      if (found.severity === "error" && !refused) continue;
      problems.push({
        severity: found.severity,
        code: found.code,
        subject: item.decision.id,
        message:
          found.field !== undefined && !found.message.startsWith(found.field)
            ? `${found.field}: ${found.message}`
            : found.message,
        fix: FIXES[found.code] ?? "see the message",
        location: found.path ?? item.candidate.location,
      });
    }
    if (item.decision.status === "shadowed")
      problems.push({
        severity: "warning",
        code: "shadowed_by_precedence",
        subject: item.decision.id,
        message: item.decision.detail,
        fix: FIXES.shadowed_by_precedence ?? "",
        location: item.candidate.location,
      });
  }
  for (const folder of inspection.manifestFolders)
    if (folder.leftOut > 0)
      problems.push({
        severity: "warning",
        code: "limit_exceeded",
        subject: folder.folder,
        message: `${folder.leftOut} manifest(s) past the per-folder cap were not read`,
        fix: "split the manifests over fewer files",
        location: folder.folder,
      });
  return problems;
}

/** The doctor's capability section. */
export function capabilityDoctorSection(inspection: CapabilityInspection): CapabilityDoctorSection {
  return { counts: statusCounts(inspection.decisions), manifestFolders: inspection.manifestFolders };
}
