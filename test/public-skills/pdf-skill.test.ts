import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import { projectWithSkill, runDirectly, runThroughSkillgate, SYSTEM_PYTHON } from "./helpers.js";

/**
 * anthropics/skills' `pdf` skill is under a licence that forbids copies outside its
 * publisher's services, so it is not a fixture of this repository (see
 * test/fixtures/public-skills/NOTICE.md). Point SKILLGATE_TEST_PDF_SKILL at the `skills/pdf`
 * folder of a checkout to run it; without it these tests are skipped, and say why.
 */
const PDF_SKILL = process.env.SKILLGATE_TEST_PDF_SKILL;
const available =
  PDF_SKILL !== undefined && existsSync(join(PDF_SKILL, "scripts", "check_fillable_fields.py"));

if (!available)
  console.warn(
    "skipping the pdf skill tests: set SKILLGATE_TEST_PDF_SKILL to the skills/pdf folder of an anthropics/skills checkout (its licence keeps it out of the fixtures)",
  );

/** Writes two PDFs into the project with Debian's pypdf: one with a text field, one without. */
const MAKE_PDFS = `import sys
from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, TextStringObject
plain = PdfWriter()
plain.add_blank_page(200, 200)
plain.write("plain.pdf")
form = PdfWriter()
page = form.add_blank_page(200, 200)
field = form._add_object(DictionaryObject({
    NameObject("/Type"): NameObject("/Annot"),
    NameObject("/Subtype"): NameObject("/Widget"),
    NameObject("/FT"): NameObject("/Tx"),
    NameObject("/T"): TextStringObject("name"),
    NameObject("/Rect"): ArrayObject([FloatObject(10), FloatObject(10), FloatObject(120), FloatObject(30)]),
}))
page[NameObject("/Annots")] = ArrayObject([field])
form._root_object[NameObject("/AcroForm")] = DictionaryObject({NameObject("/Fields"): ArrayObject([field])})
form.write("docs/form.pdf")
`;

beforeAll(() => {
  if (available) requireBubblewrap();
});

describe.skipIf(!available)("anthropics/skills pdf, unchanged: scripts/check_fillable_fields.py", () => {
  function setUp() {
    const sandbox = projectWithSkill(PDF_SKILL as string, "pdf");
    const made = spawnSync(
      SYSTEM_PYTHON,
      ["-c", `import os; os.makedirs("docs"); exec(${JSON.stringify(MAKE_PDFS)})`],
      {
        cwd: sandbox.project,
        encoding: "utf8",
      },
    );
    if (made.status !== 0) throw new Error(`the test PDFs could not be made: ${made.stderr}`);
    return sandbox;
  }

  it.each([
    ["a PDF with a form field, by a relative path", "docs/form.pdf", "This PDF has fillable form fields\n"],
    [
      "a PDF without fields",
      "plain.pdf",
      "This PDF does not have fillable form fields; you will need to visually determine where to enter data\n",
    ],
  ])("on %s gives the same output as running it directly in the project", (_case, path, expected) => {
    const sandbox = setUp();
    const direct = runDirectly(sandbox, join(sandbox.skill, "scripts", "check_fillable_fields.py"), [path]);
    const governed = runThroughSkillgate(sandbox, "pdf", "scripts/check_fillable_fields.py", [path]);
    expect(direct).toMatchObject({ out: expected, code: 0 });
    expect(governed).toEqual(direct);
  });

  it("by an absolute path inside the project too", () => {
    const sandbox = setUp();
    const path = join(sandbox.project, "docs", "form.pdf");
    const governed = runThroughSkillgate(sandbox, "pdf", "scripts/check_fillable_fields.py", [path]);
    expect(governed).toEqual({ out: "This PDF has fillable form fields\n", err: "", code: 0 });
  });
});
