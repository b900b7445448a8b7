import { createHash } from "node:crypto";
import type { SkillListSnapshot } from "../../../app/owner/skill-list-cache.js";

/** `GET /api/skills`' answer serialised once: the JSON bytes and their entity tag. */
export interface SerialisedSkillList {
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** A strong tag of the bytes, quoted (RFC 9110, section 8.8.3). */
  readonly etag: string;
  /** True when an `If-None-Match` header names this body (`*` or one of its tags). */
  matches(ifNoneMatch: string | undefined): boolean;
}

/**
 * The skills list's JSON, made once per snapshot (docs/http-api.md, "Skills"): a snapshot
 * is the same object while the store and catalog revisions stand still, so every answer in
 * between sends the same bytes instead of serialising some 70 KB again. The tag hashes the
 * bytes, so it is right across restarts too (the catalog's revision starts again at 0).
 */
export class SerialisedSkillLists {
  #last: { readonly snapshot: SkillListSnapshot; readonly body: SerialisedSkillList } | undefined;

  /** The body for `snapshot`, serialised on its first use. */
  of(snapshot: SkillListSnapshot): SerialisedSkillList {
    if (this.#last?.snapshot === snapshot) return this.#last.body;
    const bytes = Buffer.from(
      JSON.stringify({ revision: snapshot.revision, skills: snapshot.skills }),
      "utf8",
    );
    const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
    const body: SerialisedSkillList = { bytes, etag, matches: (header) => tagsMatch(header, etag) };
    this.#last = { snapshot, body };
    return body;
  }
}

/** `If-None-Match` names `etag`: `*`, or a list of tags (weak ones compared weakly, as a GET does). */
function tagsMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  return trimmed.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
