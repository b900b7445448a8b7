/**
 * Rewrites the `name:` line of a SKILL.md's front matter to a new name, touching nothing
 * else: comments, key order, quoting of other values and line ends stay as they were, so a
 * duplicate differs from its original by that one line. A SKILL.md with front matter but no
 * top-level `name:` line gets one as the first line of the block. Text without front matter
 * is returned unchanged (the loader then takes the folder name as the name). The caller
 * loads the result to confirm the name took effect.
 */
export function rewriteSkillName(text: string, newName: string): string {
  const bom = text.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
  const body = bom === "" ? text : text.slice(1);
  const lines = body.split("\n");
  if (lines[0]?.replace(/\r$/, "") !== "---") return text;
  const lineEnd = lines[0].endsWith("\r") ? "\r" : "";
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    const bare = line.replace(/\r$/, "");
    if (bare === "---") {
      lines.splice(1, 0, `name: ${newName}${lineEnd}`);
      return bom + lines.join("\n");
    }
    if (/^name\s*:/.test(bare)) {
      const ending = line.endsWith("\r") ? "\r" : "";
      lines[index] = `name: ${newName}${ending}`;
      // Indented lines after it continue the old value (a folded or multi-line scalar).
      let next = index + 1;
      while (next < lines.length && /^[ \t]+\S/.test(lines[next] as string)) next += 1;
      lines.splice(index + 1, next - index - 1);
      return bom + lines.join("\n");
    }
  }
  return text;
}
