import { type Diagnostic as LintDiagnostic, lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { type ReactNode, useEffect, useRef } from "react";
import { editorTheme } from "./editor-theme.js";
import { languageOf } from "./languages.js";
import { shadowMount } from "./shadow-host.js";

/** A problem to show on a line of the editor (1-based line and column). */
export interface LineProblem {
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** The lint diagnostics of `problems` in `state`: each on its line, or the first line when none. */
function toLintDiagnostics(state: EditorState, problems: readonly LineProblem[]): LintDiagnostic[] {
  return problems.map((problem) => {
    const lineNumber = Math.min(Math.max(problem.line ?? 1, 1), state.doc.lines);
    const line = state.doc.line(lineNumber);
    const from = Math.min(line.from + Math.max((problem.column ?? 1) - 1, 0), line.to);
    return { from, to: line.to, severity: "error", message: problem.message };
  });
}

/**
 * The script editor: CodeMirror 6 with the file's language, the problems of the last save on
 * their lines, and `onChange` told every edit. This module (and CodeMirror) is loaded only when
 * an editor opens (a dynamic import), so the skills list ships without it.
 */
export default function CodeEditor(props: {
  readonly path: string;
  readonly initial: string;
  readonly problems: readonly LineProblem[];
  readonly onChange: (text: string) => void;
  readonly label: string;
  /** Ctrl+S (Cmd+S) in the editor. */
  readonly onSave: () => void;
}): ReactNode {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const onSave = useRef(props.onSave);
  onSave.current = props.onSave;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once per file.
  useEffect(() => {
    if (host.current === null) return undefined;
    const { root, parent } = shadowMount(host.current);
    const editor = new EditorView({
      root,
      parent,
      state: EditorState.create({
        doc: props.initial,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: "Mod-s",
                preventDefault: true,
                run: () => {
                  onSave.current();
                  return true;
                },
              },
            ]),
          ),
          basicSetup,
          editorTheme,
          languageOf(props.path),
          lintGutter(),
          EditorView.contentAttributes.of({ "aria-label": props.label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChange.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = undefined;
    };
  }, [props.path, props.initial]);

  useEffect(() => {
    const editor = view.current;
    if (editor === undefined) return;
    editor.dispatch(setDiagnostics(editor.state, toLintDiagnostics(editor.state, props.problems)));
  }, [props.problems]);

  return <div className="code-editor" ref={host} data-testid="code-editor" />;
}
