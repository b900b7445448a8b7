/**
 * A one-page PDF written byte by byte, with an AcroForm of text fields when names are given:
 * enough for a PDF reader (pypdf) to parse and list the fields, so a test needs no PDF
 * library of its own. Offsets in the cross-reference table are computed, not guessed.
 */

const FIELD_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** The bytes of a one-page PDF whose form has one text field per name (none: no AcroForm). */
export function minimalPdf(fieldNames: readonly string[]): Buffer {
  for (const name of fieldNames)
    if (!FIELD_NAME.test(name)) throw new Error(`a field name must match ${FIELD_NAME}: ${name}`);
  const firstField = 4;
  const fieldReferences = fieldNames.map((_name, index) => `${firstField + index} 0 R`).join(" ");
  const form = fieldNames.length > 0 ? ` /AcroForm << /Fields [${fieldReferences}] >>` : "";
  const annotations = fieldNames.length > 0 ? ` /Annots [${fieldReferences}]` : "";
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${form} >>`,
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]${annotations} >>`,
    ...fieldNames.map((name, index) => {
      const bottom = 160 - index * 30;
      return `<< /Type /Annot /Subtype /Widget /FT /Tx /T (${name}) /P 3 0 R /Rect [10 ${bottom} 150 ${bottom + 20}] >>`;
    }),
  ];
  let text = "%PDF-1.7\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(text, "latin1"));
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const crossReference = Buffer.byteLength(text, "latin1");
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, "0")} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${crossReference}\n%%EOF\n`;
  return Buffer.from(text, "latin1");
}
