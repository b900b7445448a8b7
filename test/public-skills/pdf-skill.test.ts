import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import {
  PUBLIC_SKILLS_HOW_TO,
  projectWithSkill,
  publicSkill,
  runDirectly,
  runThroughSkillgate,
} from "./helpers.js";
import { minimalPdf } from "./minimal-pdf.js";

/**
 * anthropics/skills' own `pdf/scripts/check_fillable_fields.py`, run from a checkout named by
 * SKILLGATE_TEST_PUBLIC_SKILLS (its licence forbids copies, and code of a public repository
 * is not copied here anyway). Without the variable these tests are skipped and say how to run
 * them; the same shape is always tested with this repository's own fixture
 * (argv-pdf-fields.test.ts).
 */
const SCRIPT = "scripts/check_fillable_fields.py";
const PDF_SKILL = publicSkill("pdf", SCRIPT);

if (PDF_SKILL === undefined) console.warn(PUBLIC_SKILLS_HOW_TO);

beforeAll(() => {
  if (PDF_SKILL !== undefined) requireBubblewrap();
});

/** A project with the pdf skill installed, `docs/form.pdf` (a text field) and `plain.pdf` (none). */
function setUp() {
  const sandbox = projectWithSkill(PDF_SKILL as string, "pdf");
  mkdirSync(join(sandbox.project, "docs"));
  writeFileSync(join(sandbox.project, "docs", "form.pdf"), minimalPdf(["name"]));
  writeFileSync(join(sandbox.project, "plain.pdf"), minimalPdf([]));
  return sandbox;
}

describe.skipIf(PDF_SKILL === undefined)(
  "anthropics/skills pdf, from a checkout: scripts/check_fillable_fields.py",
  () => {
    it.each([
      ["a PDF with a form field, by a relative path", (_project: string) => "docs/form.pdf"],
      [
        "a PDF with a form field, by an absolute path",
        (project: string) => join(project, "docs", "form.pdf"),
      ],
      ["a PDF without fields, by a relative path", (_project: string) => "plain.pdf"],
      ["a PDF without fields, by an absolute path", (project: string) => join(project, "plain.pdf")],
    ])("on %s gives the same output as running it directly in the project", (_case, pathOf) => {
      const sandbox = setUp();
      const path = pathOf(sandbox.project);
      const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), [path]);
      const governed = runThroughSkillgate(sandbox, "pdf", SCRIPT, [path]);
      expect(direct.code).toBe(0);
      expect(governed).toEqual(direct);
    });

    it("tells the PDF with a form from the one without", () => {
      const sandbox = setUp();
      const form = runThroughSkillgate(sandbox, "pdf", SCRIPT, ["docs/form.pdf"]);
      const plain = runThroughSkillgate(sandbox, "pdf", SCRIPT, ["plain.pdf"]);
      expect(form.out).not.toBe(plain.out);
    });
  },
);
