import { lazy, type ReactNode, Suspense, useState } from "react";
import { ApiError } from "../api/client.js";
import { getSkillFile, putSkillFile } from "../api/skills.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import type { LineProblem } from "../editor/code-editor.js";
import { skillHref } from "../router.js";
import { useApi } from "../use-api.js";

/** CodeMirror and its languages, fetched when an editor first opens. */
const CodeEditor = lazy(() => import("../editor/code-editor.js"));

/** A problem of the script check, as the server's 422 `script_check_failed` data lists them. */
interface CheckProblem {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly message?: string;
}

/** The problems of a refused save that belong to `path`. */
export function problemsOf(error: unknown, path: string): LineProblem[] {
  if (!(error instanceof ApiError) || error.code !== "script_check_failed") return [];
  const problems = Array.isArray(error.data.problems) ? (error.data.problems as CheckProblem[]) : [];
  return problems
    .filter((problem) => problem.file === undefined || problem.file === path)
    .map((problem) => ({
      message: problem.message ?? "does not parse",
      ...(problem.line !== undefined ? { line: problem.line } : {}),
      ...(problem.column !== undefined ? { column: problem.column } : {}),
    }));
}

/**
 * Edits one file of a skill. Save sends the text with the hash it was read at; the server runs
 * the script check and refuses a script that does not parse (its problems go on their lines),
 * an edit that breaks `parameters_schema` or the front matter, or a skill that changed since.
 */
export function EditorPage(props: { readonly name: string; readonly path: string }): ReactNode {
  const file = useApi(() => getSkillFile(props.name, props.path), [props.name, props.path]);
  const [text, setText] = useState<string | undefined>();
  const [hash, setHash] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();
  const [problems, setProblems] = useState<readonly LineProblem[]>([]);

  if (file.value === undefined) {
    return file.error !== undefined ? <ErrorNotice error={file.error} /> : <Loading />;
  }
  if (file.value.encoding === "base64") {
    return (
      <section aria-labelledby="editor-heading">
        <p>
          <a href={skillHref(props.name)}>← {props.name}</a>
        </p>
        <h1 id="editor-heading">{props.path}</h1>
        <p className="notice">
          This file is not text ({file.value.size ?? "?"} bytes): it cannot be edited here.
        </p>
      </section>
    );
  }
  const baseHash = hash ?? file.value.hash;
  const save = async (): Promise<void> => {
    setSaving(true);
    setError(undefined);
    setSaved(undefined);
    try {
      const result = await putSkillFile(props.name, props.path, text ?? file.value?.content ?? "", baseHash);
      setHash(result.hash);
      setSaved(result.hash);
      setProblems([]);
    } catch (caught) {
      setError(caught);
      setProblems(problemsOf(caught, props.path));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby="editor-heading">
      <p>
        <a href={skillHref(props.name)}>← {props.name}</a>
      </p>
      <h1 id="editor-heading">{props.path}</h1>
      <p className="muted">
        Editing at hash <Hash value={baseHash} />. Ctrl+S or the Save button runs the server's script check.
      </p>
      <Suspense fallback={<Loading />}>
        <CodeEditor
          path={props.path}
          initial={file.value.content}
          problems={problems}
          onChange={setText}
          label={`Contents of ${props.path}`}
          onSave={() => void save()}
        />
      </Suspense>
      <div className="actions">
        <button type="button" className="primary" disabled={saving} onClick={() => void save()}>
          {saving ? "Saving…" : "Save"}
        </button>
      </div>
      {saved !== undefined ? (
        <p className="notice notice-ok" role="status">
          Saved. The skill's hash is now <Hash value={saved} />.
        </p>
      ) : null}
      {error !== undefined ? <ErrorNotice error={error} /> : null}
      {problems.length > 0 ? (
        <ul className="problems" aria-label="Script check problems" data-testid="script-problems">
          {problems.map((problem) => (
            <li key={`${problem.line ?? 0}:${problem.column ?? 0}:${problem.message}`}>
              {problem.line !== undefined ? <code>line {problem.line}</code> : null} {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
