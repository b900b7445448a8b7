import DOMPurify from "dompurify";
import { marked } from "marked";
import { type ReactNode, useMemo } from "react";

/** Removes the front matter block of SKILL.md, which is shown as governance, not prose. */
export function stripFrontMatter(text: string): string {
  const match = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  return match === null ? text : text.slice(match[0].length);
}

/**
 * SKILL.md rendered: marked turns it into HTML and DOMPurify keeps only inert markup (no
 * script, no event handler, no style, no form), so a skill's text never runs in the page.
 */
export function Markdown(props: { readonly text: string }): ReactNode {
  const html = useMemo(() => {
    const rendered = marked.parse(stripFrontMatter(props.text), { async: false, gfm: true });
    return DOMPurify.sanitize(rendered, {
      USE_PROFILES: { html: true },
      FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "img"],
      FORBID_ATTR: ["style"],
    });
  }, [props.text]);
  // Sanitised above: the only place the UI sets HTML.
  // biome-ignore lint/security/noDangerouslySetInnerHtml: DOMPurify output of the skill's Markdown.
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
