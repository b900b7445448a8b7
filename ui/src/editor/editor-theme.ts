import { EditorView } from "@codemirror/view";

/**
 * The editors' look. The page's stylesheet does not reach into the editor's shadow root, so
 * sizes and fonts are set here (CodeMirror turns them into a constructed stylesheet).
 */
export const editorTheme = EditorView.theme({
  "&": { fontSize: "0.9rem", backgroundColor: "var(--card, #fff)", color: "var(--fg, #1d1d1f)" },
  ".cm-scroller": {
    fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
    maxHeight: "70vh",
  },
  ".cm-content": { minHeight: "12rem" },
  ".cm-gutters": { backgroundColor: "transparent" },
  // CodeMirror draws lint marks with data: SVG images, which the server's CSP (img-src 'self')
  // blocks: the same marks in plain CSS.
  ".cm-lintRange-error": {
    backgroundImage: "none",
    textDecoration: "underline wavy #d33",
    textUnderlineOffset: "3px",
  },
  ".cm-lintRange-warning": { backgroundImage: "none", textDecoration: "underline wavy #c80" },
  ".cm-lint-marker-error, .cm-lint-marker-warning": {
    content: "none",
    display: "inline-block",
    width: "0.7em",
    height: "0.7em",
    borderRadius: "50%",
    marginTop: "0.3em",
  },
  ".cm-lint-marker-error": { backgroundColor: "#d33" },
  ".cm-lint-marker-warning": { backgroundColor: "#c80" },
});
