import { MergeView, unifiedMergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { type ReactNode, useEffect, useRef } from "react";
import { editorTheme } from "./editor-theme.js";
import { languageOf } from "./languages.js";
import { shadowMount } from "./shadow-host.js";

/** Read-only extensions of both sides. */
function readOnly(path: string) {
  return [
    basicSetup,
    editorTheme,
    languageOf(path),
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
  ];
}

/**
 * A file's change as CodeMirror's merge view: two panes side by side, or one pane with the
 * removed lines shown inline (unified). Read-only: approving applies the plan as the server
 * holds it, never what is on screen.
 */
export default function DiffView(props: {
  readonly path: string;
  readonly before: string;
  readonly after: string;
  readonly layout: "side-by-side" | "unified";
}): ReactNode {
  const host = useRef<HTMLElement>(null);
  useEffect(() => {
    if (host.current === null) return undefined;
    const { root, parent } = shadowMount(host.current);
    if (props.layout === "side-by-side") {
      const view = new MergeView({
        root,
        parent,
        a: { doc: props.before, extensions: readOnly(props.path) },
        b: { doc: props.after, extensions: readOnly(props.path) },
        collapseUnchanged: { margin: 3, minSize: 6 },
      });
      return () => view.destroy();
    }
    const view = new EditorView({
      root,
      parent,
      state: EditorState.create({
        doc: props.after,
        extensions: [
          ...readOnly(props.path),
          unifiedMergeView({
            original: props.before,
            mergeControls: false,
            collapseUnchanged: { margin: 3 },
          }),
        ],
      }),
    });
    return () => view.destroy();
  }, [props.path, props.before, props.after, props.layout]);
  return <section className="diff-view" ref={host} aria-label={`Changes to ${props.path}`} />;
}
