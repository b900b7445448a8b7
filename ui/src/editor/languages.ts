import { javascript } from "@codemirror/lang-javascript";
import { python } from "@codemirror/lang-python";
import { StreamLanguage } from "@codemirror/language";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import type { Extension } from "@codemirror/state";

/** The CodeMirror language of a file, by its extension; none for plain text. */
export function languageOf(path: string): Extension {
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  switch (extension) {
    case "py":
      return python();
    case "js":
    case "mjs":
    case "cjs":
      return javascript();
    case "ts":
    case "mts":
      return javascript({ typescript: true });
    case "sh":
    case "bash":
      return StreamLanguage.define(shell);
    default:
      return [];
  }
}
