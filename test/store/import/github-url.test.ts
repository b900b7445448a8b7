import { describe, expect, it } from "vitest";
import { parseGithubTreeUrl } from "../../../src/store/import/github-url.js";
import { isImportRefusal } from "../../../src/store/import/import-errors.js";

describe("parseGithubTreeUrl", () => {
  it("reads owner, repo, ref and path", () => {
    expect(parseGithubTreeUrl("https://github.com/octo/skills/tree/main/skills/pdf")).toEqual({
      owner: "octo",
      repo: "skills",
      ref: "main",
      path: "skills/pdf",
      url: "https://github.com/octo/skills/tree/main/skills/pdf",
    });
  });

  it("accepts the repository root, a trailing slash, a commit and encoded names", () => {
    expect(parseGithubTreeUrl("https://github.com/octo/skills/tree/v1.2.0").path).toBe("");
    expect(parseGithubTreeUrl("https://github.com/octo/skills/tree/main/").path).toBe("");
    expect(parseGithubTreeUrl("https://github.com/octo/skills/tree/main/a/b/").path).toBe("a/b");
    const sha = "0123456789abcdef0123456789abcdef01234567";
    expect(parseGithubTreeUrl(`https://github.com/octo/my.repo_1/tree/${sha}/x`).ref).toBe(sha);
    expect(parseGithubTreeUrl("https://github.com/octo/skills/tree/main/my%20skill").path).toBe("my skill");
  });

  const refused: [string, string][] = [
    ["blob address", "https://github.com/octo/skills/blob/main/skills/pdf/SKILL.md"],
    ["no ref", "https://github.com/octo/skills"],
    ["tree without ref", "https://github.com/octo/skills/tree"],
    ["tree with empty ref", "https://github.com/octo/skills/tree/"],
    ["http", "http://github.com/octo/skills/tree/main/pdf"],
    ["other host", "https://gitlab.com/octo/skills/tree/main/pdf"],
    ["look-alike host", "https://github.com.evil.example/octo/skills/tree/main/pdf"],
    ["www host", "https://www.github.com/octo/skills/tree/main/pdf"],
    ["port", "https://github.com:443/octo/skills/tree/main/pdf"],
    ["user info", "https://user@github.com/octo/skills/tree/main/pdf"],
    ["extra query", "https://github.com/octo/skills/tree/main/pdf?tab=readme"],
    ["fragment", "https://github.com/octo/skills/tree/main/pdf#readme"],
    ["api address", "https://api.github.com/repos/octo/skills/contents/pdf"],
    ["dot-dot in path", "https://github.com/octo/skills/tree/main/pdf/../../etc"],
    ["encoded dot-dot", "https://github.com/octo/skills/tree/main/%2e%2e/x"],
    ["encoded slash", "https://github.com/octo/skills/tree/main/a%2Fb"],
    ["double slash", "https://github.com/octo/skills/tree/main/a//b"],
    ["backslash", "https://github.com/octo/skills/tree/main/a\\b"],
    ["dot-dot ref", "https://github.com/octo/skills/tree/a..b/x"],
    ["bad owner", "https://github.com/-octo/skills/tree/main/x"],
    ["not a URL", "github.com/octo/skills/tree/main/x"],
    ["empty", ""],
  ];

  it.each(refused)("refuses %s with the expected form in the message", (_name, url) => {
    let caught: unknown;
    try {
      parseGithubTreeUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(isImportRefusal(caught, "invalid_github_url")).toBe(true);
    expect(isImportRefusal(caught) && caught.message).toContain(
      "https://github.com/OWNER/REPO/tree/REF/PATH",
    );
    expect(isImportRefusal(caught) && caught.httpStatus).toBe(400);
  });
});
