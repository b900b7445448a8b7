import { type ReactNode, useState } from "react";
import { ApiError } from "../api/client.js";
import { getReview } from "../api/review.js";
import { setSkillEnabled } from "../api/skills.js";
import type { DraftSummary, PlanSummary } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import { useLive } from "../live.js";
import { skillHref } from "../router.js";
import { useApi } from "../use-api.js";

/** What waits for the owner: drafts to enable by hash, and edit plans to approve or reject. */
export function ReviewPage(): ReactNode {
  const live = useLive();
  const review = useApi(() => getReview(), [live.version]);
  if (review.value === undefined) {
    return review.error !== undefined ? <ErrorNotice error={review.error} /> : <Loading />;
  }
  const { drafts, plans } = review.value;
  return (
    <section aria-labelledby="review-heading">
      <h1 id="review-heading">Review</h1>
      <h2>Drafts</h2>
      {drafts.length === 0 ? <p className="muted">No drafts waiting.</p> : null}
      <ul className="cards">
        {drafts.map((draft) => (
          <DraftCard key={draft.name} draft={draft} reload={review.reload} />
        ))}
      </ul>
      <h2>Edit plans</h2>
      {plans.length === 0 ? <p className="muted">No edit plans waiting.</p> : null}
      <ul className="cards">
        {plans.map((plan) => (
          <PlanCard key={plan.id} plan={plan} />
        ))}
      </ul>
    </section>
  );
}

/** A draft: who wrote it, from which chats, why, its warnings, and enable at the hash shown. */
function DraftCard(props: { readonly draft: DraftSummary; readonly reload: () => void }): ReactNode {
  const { draft } = props;
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const approve = async (): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await setSkillEnabled(draft.name, true, draft.hash);
      props.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="card" aria-label={`Draft ${draft.name}`}>
      <h3>
        <a href={skillHref(draft.name)}>{draft.name}</a>{" "}
        {draft.enabled ? (
          <span className="pill on">enabled</span>
        ) : (
          <span className="pill off">disabled</span>
        )}
      </h3>
      <p>{draft.description}</p>
      <dl className="facts">
        <dt>Author</dt>
        <dd>{draft.author ?? "unknown"}</dd>
        <dt>Source chats</dt>
        <dd>
          {draft.sourceChats.length === 0
            ? "none"
            : draft.sourceChats.map((chat) => (
                <a key={chat} className="chip" href={`#/chats/${encodeURIComponent(chat)}`}>
                  {chat}
                </a>
              ))}
        </dd>
        <dt>Rationale</dt>
        <dd>{draft.rationale ?? "none given"}</dd>
        <dt>Hash</dt>
        <dd>
          <Hash value={draft.hash} />
        </dd>
      </dl>
      {draft.reviewWarnings !== undefined ? <p className="pill warn">{draft.reviewWarnings}</p> : null}
      {(draft.lint ?? []).length > 0 ? (
        <ul aria-label="Lint warnings">
          {(draft.lint ?? []).map((warning) => (
            <li key={`${warning.file}:${warning.line}:${warning.rule}`}>
              <code>
                {warning.file}:{warning.line}
              </code>{" "}
              {warning.message}
            </li>
          ))}
        </ul>
      ) : null}
      {!draft.enabled ? (
        <button type="button" className="primary" disabled={busy} onClick={() => void approve()}>
          Approve and enable {draft.hash.slice(0, 12)}
        </button>
      ) : null}
      {error instanceof ApiError && error.status === 409 ? (
        <div className="notice notice-error" role="alert">
          <strong>Changed since you looked.</strong> The draft is no longer at this hash.{" "}
          <button type="button" onClick={props.reload}>
            Reload
          </button>
        </div>
      ) : error !== undefined ? (
        <ErrorNotice error={error} />
      ) : null}
    </li>
  );
}

/** An edit plan waiting: its skill, reason, files and a link to its diff. */
function PlanCard(props: { readonly plan: PlanSummary }): ReactNode {
  const { plan } = props;
  return (
    <li className="card" aria-label={`Edit plan for ${plan.skill}`}>
      <h3>
        <a href={`#/plans/${encodeURIComponent(plan.id)}`}>Edit of {plan.skill}</a>
      </h3>
      <p>{plan.reason}</p>
      <p className="muted small">
        Writes {plan.writes.join(", ") || "nothing"}
        {plan.removes.length > 0 ? `; removes ${plan.removes.join(", ")}` : ""}. {plan.warnings} lint{" "}
        {plan.warnings === 1 ? "warning" : "warnings"}. Expires {new Date(plan.expiresAt).toLocaleString()}.
      </p>
    </li>
  );
}
