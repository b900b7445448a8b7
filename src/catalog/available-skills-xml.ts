import type { Skill } from "../skill/skill.js";

/** Escapes text as Python's `html.escape(text, quote=True)` does. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");
}

/**
 * The `<available_skills>` block of the Agent Skills reference library's `to-prompt`,
 * byte for byte: one element per line, values HTML-escaped, the SKILL.md path as the
 * location, and `<available_skills>\n</available_skills>` for no skills.
 *
 * One deliberate difference: the reference writes the location unescaped; here it is
 * escaped like the other values, so a folder named `</location><skill>…` cannot add
 * elements to a prompt. For any path without `& < > " '` the bytes are the same.
 */
export function availableSkillsXml(skills: readonly Skill[]): string {
  const lines = ["<available_skills>"];
  for (const skill of skills) {
    lines.push(
      "<skill>",
      "<name>",
      escapeHtml(skill.name),
      "</name>",
      "<description>",
      escapeHtml(skill.description),
      "</description>",
      "<location>",
      escapeHtml(skill.where),
      "</location>",
      "</skill>",
    );
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
