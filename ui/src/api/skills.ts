import { apiRequest, filePath, query, segment } from "./client.js";
import { listIn } from "./lists.js";
import type { ChangeResult, ImportResult, SkillDetail, SkillFileContent, SkillSummary } from "./types.js";

/** Every skill, built-ins and stored (`GET /api/skills`). */
export async function listSkills(signal?: AbortSignal): Promise<SkillSummary[]> {
  return listIn<SkillSummary>(await apiRequest("/skills", signal !== undefined ? { signal } : {}), "skills");
}

/** One skill's page (`GET /api/skills/:name`). */
export function getSkill(name: string): Promise<SkillDetail> {
  return apiRequest(`/skills/${segment(name)}`);
}

/** One file's text (`GET /api/skills/:name/files/*path`). */
export async function getSkillFile(name: string, path: string): Promise<SkillFileContent> {
  const answer = await apiRequest<SkillFileContent | string>(
    `/skills/${segment(name)}/files/${filePath(path)}`,
  );
  return typeof answer === "string" ? { path, content: answer } : answer;
}

/**
 * Writes one file (`PUT /api/skills/:name/files/*path`). The server runs the script check first:
 * a script that does not parse is refused with 422 `script_check_failed` and its diagnostics.
 * `hash` is the skill's hash when the file was read, so a change made meanwhile is refused.
 */
export function putSkillFile(
  name: string,
  path: string,
  content: string,
  hash?: string,
): Promise<ChangeResult> {
  return apiRequest(`/skills/${segment(name)}/files/${filePath(path)}`, {
    method: "PUT",
    json: hash !== undefined ? { content, hash } : { content },
  });
}

/** Removes one file. */
export function deleteSkillFile(name: string, path: string, hash?: string): Promise<ChangeResult> {
  return apiRequest(`/skills/${segment(name)}/files/${filePath(path)}${query({ hash })}`, {
    method: "DELETE",
  });
}

/** Enables or disables a skill by hash; 409 `skill_changed` when the skill moved since it was read. */
export function setSkillEnabled(name: string, enabled: boolean, hash: string): Promise<ChangeResult> {
  return apiRequest(`/skills/${segment(name)}/enabled`, { method: "PUT", json: { enabled, hash } });
}

/** Copies a skill under a new name. */
export function duplicateSkill(name: string, to: string): Promise<ChangeResult> {
  return apiRequest(`/skills/${segment(name)}/duplicate`, { method: "POST", json: { to } });
}

/** Removes a stored skill, only if it still has `hash` when given. */
export function deleteSkill(name: string, hash?: string): Promise<unknown> {
  return apiRequest(`/skills/${segment(name)}${query({ hash })}`, { method: "DELETE" });
}

/** Creates a skill from text files (path → content), as the owner's. */
export function createSkill(name: string, files: Readonly<Record<string, string>>): Promise<ChangeResult> {
  return apiRequest("/skills", { method: "POST", json: { name, files } });
}

/** Imports a skill from a zip (saved disabled); the body is streamed and refused with 413 past the limit. */
export function importZip(zip: Blob, filename?: string): Promise<ImportResult> {
  return apiRequest(`/skills/import${query({ filename })}`, {
    method: "POST",
    body: zip,
    contentType: "application/zip",
  });
}

/** Imports a skill from a GitHub folder address. */
export function importGithub(url: string): Promise<ImportResult> {
  return apiRequest("/skills/import/github", { method: "POST", json: { url } });
}
