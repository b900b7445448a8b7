import { parseRelativePath } from "../../core/safe-paths.js";
import { ImportRefusedError } from "./import-errors.js";

/** The one form of GitHub address an import accepts, as shown in messages. */
export const GITHUB_TREE_FORM = "https://github.com/OWNER/REPO/tree/REF/PATH";

/** A folder in a GitHub repository at a ref, parsed from a tree address. */
export interface GithubFolderAddress {
  readonly owner: string;
  readonly repo: string;
  /** A branch, tag or commit; one path segment (refs that hold `/` cannot be told from the path). */
  readonly ref: string;
  /** The folder inside the repository, `/`-separated, decoded; empty for the repository root. */
  readonly path: string;
  /** The address as given. */
  readonly url: string;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const SHAPE = /^https:\/\/github\.com\/([^/?#]+)\/([^/?#]+)\/tree\/([^/?#]+)((?:\/[^/?#]*)*)$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused in refs and paths.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Parses a GitHub folder address of exactly the form `https://github.com/OWNER/REPO/tree/REF/PATH`
 * (PATH may be empty for the repository root; one trailing slash is fine). Everything else
 * is refused with a message that shows the expected form: `http://`, other hosts (also
 * `www.github.com` and ports), `blob/` file addresses, addresses without `tree/REF`, a query
 * or a fragment, user info, and `.`/`..`/encoded-slash segments.
 *
 * @throws ImportRefusedError `invalid_github_url`
 */
export function parseGithubTreeUrl(url: string): GithubFolderAddress {
  const refuse: (why: string) => never = (why) => {
    throw new ImportRefusedError(
      "invalid_github_url",
      `"${url.length > 300 ? `${url.slice(0, 299)}…` : url}" is not a GitHub folder address (${why}); expected ${GITHUB_TREE_FORM}, for example https://github.com/octo/skills/tree/main/skills/pdf`,
      { url },
    );
  };
  if (typeof url !== "string" || url.length === 0) refuse("it is empty");
  if (url.length > 2048) refuse("it is too long");
  if (!url.startsWith("https://")) refuse("it must start with https://");
  if (url.includes("?") || url.includes("#")) refuse("a query or fragment is not allowed");
  if (!url.startsWith("https://github.com/")) refuse("the host must be github.com");
  const match = SHAPE.exec(url);
  if (!match) {
    if (/^https:\/\/github\.com\/[^/]+\/[^/]+\/blob\//.test(url))
      refuse("it names a file (blob), not a folder (tree)");
    refuse("it must name a folder with /tree/REF");
  }
  const [, ownerText = "", repoText = "", refText = "", pathText = ""] = match;
  const owner = decodeSegment(ownerText, refuse);
  const repo = decodeSegment(repoText, refuse);
  const ref = decodeSegment(refText, refuse);
  if (!OWNER.test(owner)) refuse(`"${owner}" is not a GitHub owner name`);
  if (!REPO.test(repo) || repo === "." || repo === "..") refuse(`"${repo}" is not a repository name`);
  if (
    ref.length > 255 ||
    /[\s~^:?*[\\]/.test(ref) ||
    ref.includes("..") ||
    ref.startsWith("-") ||
    ref.startsWith(".")
  ) {
    refuse(`"${ref}" is not a ref name`);
  }
  const rawSegments = pathText.split("/").slice(1);
  if (rawSegments.at(-1) === "") rawSegments.pop();
  const segments = rawSegments.map((segment) => decodeSegment(segment, refuse));
  const checked = segments.length === 0 ? undefined : parseRelativePath(segments.join("/"));
  if (checked?.ok === false) refuse(checked.problem.reason);
  return { owner, repo, ref, path: segments.join("/"), url };
}

/** Percent-decodes one segment; an encoded `/` or a control character is refused. */
function decodeSegment(segment: string, refuse: (why: string) => never): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return refuse("it has a malformed percent escape");
  }
  if (decoded.includes("/")) refuse("a segment holds an encoded /");
  if (CONTROL.test(decoded)) refuse("it holds a control character");
  return decoded;
}
