import { type ReactNode, useState } from "react";
import { approveAsk, declineAsk, listApprovals } from "../api/review.js";
import type { ApprovalRequest } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import { useLive } from "../live.js";
import { skillHref } from "../router.js";
import { useApi } from "../use-api.js";

/** The asks tool calls are waiting on; each is answered exactly once (here, the CLI or a client). */
export function AsksPage(): ReactNode {
  const live = useLive();
  const asks = useApi(() => listApprovals(), [live.version]);
  // The last answer stays on the page after its ask leaves the list.
  const [answered, setAnswered] = useState<string | undefined>();
  if (asks.value === undefined) {
    return asks.error !== undefined ? <ErrorNotice error={asks.error} /> : <Loading />;
  }
  return (
    <section aria-labelledby="asks-heading">
      <h1 id="asks-heading">Asks waiting</h1>
      <div aria-live="polite">
        {answered !== undefined ? (
          <p className="notice notice-ok" role="status">
            {answered}
          </p>
        ) : null}
      </div>
      {asks.value.length === 0 ? <p className="muted">Nothing is waiting for an answer.</p> : null}
      <ul className="cards">
        {asks.value.map((ask) => (
          <AskCard
            key={ask.id}
            ask={ask}
            onAnswered={(text) => {
              setAnswered(text);
              asks.reload();
            }}
          />
        ))}
      </ul>
    </section>
  );
}

/** One ask: what would run, where, under which rule; approve once, always for the chat, or decline. */
function AskCard(props: {
  readonly ask: ApprovalRequest;
  readonly onAnswered: (text: string) => void;
}): ReactNode {
  const { ask } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const answer = async (choice: "once" | "always" | "decline"): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      if (choice === "decline") await declineAsk(ask.id);
      else await approveAsk(ask.id, choice === "always");
      const what = `${ask.tool}${ask.skill !== undefined ? ` of ${ask.skill}` : ""}`;
      props.onAnswered(
        choice === "decline"
          ? `Declined ${what}.`
          : choice === "always"
            ? `Approved ${what} for this ${ask.scope.kind}.`
            : `Approved ${what} once.`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const always = ask.options.includes("always-chat") || ask.options.includes("always-job");
  return (
    <li className="card" aria-label={`Ask ${ask.tool}`}>
      <h3>
        <code>{ask.tool}</code> <span className="pill">{ask.tier}</span>
      </h3>
      <p>{ask.summary}</p>
      {ask.warning !== undefined ? <p className="notice notice-error">{ask.warning}</p> : null}
      <dl className="facts">
        <dt>Skill</dt>
        <dd>{ask.skill !== undefined ? <a href={skillHref(ask.skill)}>{ask.skill}</a> : "none"}</dd>
        <dt>Hash</dt>
        <dd>
          <Hash value={ask.hash} />
        </dd>
        <dt>{ask.scope.kind === "job" ? "Job" : "Chat"}</dt>
        <dd>{ask.scope.id}</dd>
        {ask.rule !== undefined ? (
          <>
            <dt>Policy rule</dt>
            <dd>{ask.rule}</dd>
          </>
        ) : null}
        <dt>Expires</dt>
        <dd>{new Date(ask.expiresAt).toLocaleTimeString()}</dd>
      </dl>
      {ask.arguments !== undefined ? (
        <details>
          <summary>Arguments</summary>
          <pre className="raw">{readableArguments(ask.arguments)}</pre>
        </details>
      ) : null}
      {ask.detail !== undefined ? (
        <details>
          <summary>Detail</summary>
          <pre className="raw">{ask.detail}</pre>
        </details>
      ) : null}
      <div className="actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void answer("once")}>
          Approve once
        </button>
        {always ? (
          <button type="button" disabled={busy} onClick={() => void answer("always")}>
            Always for this {ask.scope.kind}
          </button>
        ) : null}
        <button type="button" disabled={busy} onClick={() => void answer("decline")}>
          Decline
        </button>
      </div>
      {error !== undefined ? <ErrorNotice error={error} /> : null}
    </li>
  );
}

/** The arguments text indented for reading; a cut (too long) text is shown as it came. */
export function readableArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
