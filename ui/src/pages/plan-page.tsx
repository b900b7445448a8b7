import { lazy, type ReactNode, Suspense, useState } from "react";
import { approvePlan, getPlan, rejectPlan } from "../api/review.js";
import { getSkillFile } from "../api/skills.js";
import type { PlanDetail } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import { skillHref } from "../router.js";
import { useApi } from "../use-api.js";

/** CodeMirror's merge view, fetched when a plan is opened. */
const DiffView = lazy(() => import("../editor/diff-view.js"));

/** One file of a plan: before (the skill now) and after (what approving writes). */
export interface PlanFile {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

/** Reads the current text of every file the plan writes or removes. */
async function planFiles(plan: PlanDetail): Promise<PlanFile[]> {
  const paths = [...Object.keys(plan.changes.write), ...plan.changes.remove];
  return Promise.all(
    paths.map(async (path) => {
      const before = await getSkillFile(plan.skill, path).then(
        (file) => file.content,
        () => "",
      );
      return { path, before, after: plan.changes.write[path] ?? "" };
    }),
  );
}

/**
 * An edit plan: its diff side by side or unified, and approve or reject at the plan's hash.
 * An edit is never offered "always": each one is approved on its own.
 */
export function PlanPage(props: { readonly id: string }): ReactNode {
  const plan = useApi(() => getPlan(props.id), [props.id]);
  const files = useApi(
    () => (plan.value === undefined ? Promise.resolve(undefined) : planFiles(plan.value)),
    [plan.value],
  );
  const [layout, setLayout] = useState<"side-by-side" | "unified">("side-by-side");
  const [outcome, setOutcome] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  if (plan.value === undefined) {
    return plan.error !== undefined ? <ErrorNotice error={plan.error} /> : <Loading />;
  }
  const current = plan.value;
  const answer = async (approve: boolean): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      if (approve) await approvePlan(current.id, current.resultHash);
      else await rejectPlan(current.id, current.resultHash);
      setOutcome(approve ? "Approved: the edit is applied." : "Rejected: the plan is removed.");
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="plan-heading">
      <p>
        <a href="#/review">← Review</a>
      </p>
      <h1 id="plan-heading">
        Edit of <a href={skillHref(current.skill)}>{current.skill}</a>
      </h1>
      {current.request?.reason !== undefined ? <p>{current.request.reason}</p> : null}
      <dl className="facts">
        <dt>From hash</dt>
        <dd>
          <Hash value={current.baseHash} />
        </dd>
        <dt>To hash</dt>
        <dd>
          <Hash value={current.resultHash} />
        </dd>
        <dt>Expires</dt>
        <dd>{new Date(current.expiresAt).toLocaleString()}</dd>
      </dl>
      {current.warnings.length > 0 ? (
        <ul aria-label="Lint warnings">
          {current.warnings.map((warning) => (
            <li key={`${warning.file}:${warning.line}:${warning.rule}`}>
              <code>
                {warning.file}:{warning.line}
              </code>{" "}
              {warning.message}
            </li>
          ))}
        </ul>
      ) : null}
      <fieldset className="tabs">
        <legend className="visually-hidden">Diff layout</legend>
        <button
          type="button"
          aria-pressed={layout === "side-by-side"}
          onClick={() => setLayout("side-by-side")}
        >
          Side by side
        </button>
        <button type="button" aria-pressed={layout === "unified"} onClick={() => setLayout("unified")}>
          Unified
        </button>
      </fieldset>
      {files.value === undefined ? (
        <Loading />
      ) : (
        <Suspense fallback={<Loading />}>
          {files.value.map((file) => (
            <div key={file.path} className="diff-file">
              <h2 className="small">{file.path}</h2>
              <DiffView path={file.path} before={file.before} after={file.after} layout={layout} />
            </div>
          ))}
        </Suspense>
      )}
      {current.diffTruncated ? (
        <p className="muted">The server cut the text diff; the files above are whole.</p>
      ) : null}
      {outcome !== undefined ? (
        <p className="notice notice-ok" role="status">
          {outcome}
        </p>
      ) : (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void answer(true)}>
            Approve {current.resultHash.slice(0, 12)}
          </button>
          <button type="button" disabled={busy} onClick={() => void answer(false)}>
            Reject
          </button>
        </div>
      )}
      {error !== undefined ? <ErrorNotice error={error} /> : null}
    </section>
  );
}
