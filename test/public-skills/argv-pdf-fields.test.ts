import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import { ownFixture, projectWithSkill, runDirectly, runThroughSkillgate } from "./helpers.js";
import { minimalPdf } from "./minimal-pdf.js";

/**
 * A PDF checker shaped like the public ones (anthropics/skills' pdf skill has one): a
 * `sys.argv` script that opens a PDF of the project with Debian's python3-pypdf and says
 * whether it has fillable fields. The PDFs are written by the test, one with a form and one
 * without. Run through `skillgate run … -- PATH`, it must print and exit as it does run
 * directly in the project.
 */

beforeAll(() => requireBubblewrap());

const SKILL = "argv-pdf-fields";
const SCRIPT = "scripts/check_fields.py";

/** A project with the checker installed, `docs/form.pdf` (two fields) and `plain.pdf` (none). */
function setUp() {
  const sandbox = projectWithSkill(ownFixture(SKILL), SKILL);
  mkdirSync(join(sandbox.project, "docs"));
  writeFileSync(join(sandbox.project, "docs", "form.pdf"), minimalPdf(["name", "email"]));
  writeFileSync(join(sandbox.project, "plain.pdf"), minimalPdf([]));
  writeFileSync(join(sandbox.project, "notes.pdf"), "not a PDF at all\n");
  return sandbox;
}

describe("a pdf-shaped field checker: sys.argv, a PDF path, python3-pypdf", () => {
  it.each([
    [
      "a relative path to a PDF with a form",
      (_project: string) => "docs/form.pdf",
      ": 2 fillable field(s): email, name\n",
    ],
    [
      "an absolute path to a PDF with a form",
      (project: string) => join(project, "docs", "form.pdf"),
      ": 2 fillable field(s): email, name\n",
    ],
    ["a relative path to a PDF without fields", (_project: string) => "plain.pdf", ": no fillable fields\n"],
    [
      "an absolute path to a PDF without fields",
      (project: string) => join(project, "plain.pdf"),
      ": no fillable fields\n",
    ],
  ])(
    "on %s gives the same stdout and exit code as running it directly in the project",
    (_case, pathOf, verdict) => {
      const sandbox = setUp();
      const path = pathOf(sandbox.project);
      const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), [path]);
      const governed = runThroughSkillgate(sandbox, SKILL, SCRIPT, [path]);
      expect(direct).toEqual({ out: `${path}${verdict}`, err: "", code: 0 });
      expect(governed).toEqual(direct);
    },
  );

  it("on a file that is not a PDF fails as it does directly: the reason on stderr, exit 1", () => {
    const sandbox = setUp();
    const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), ["notes.pdf"]);
    const governed = runThroughSkillgate(sandbox, SKILL, SCRIPT, ["notes.pdf"]);
    expect(direct).toEqual({ out: "", err: "notes.pdf: not a readable PDF (PdfReadError)\n", code: 1 });
    expect(governed).toEqual({ ...direct, err: `${direct.err}skillgate: ${SCRIPT} exited with code 1.\n` });
  });
});
