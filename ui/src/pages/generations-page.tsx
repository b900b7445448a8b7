import { type ReactNode, useState } from "react";
import {
  answerGeneration,
  type Generation,
  type GenerationState,
  listGenerations,
} from "../api/generations.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { useLive } from "../live.js";
import { useApi } from "../use-api.js";

/**
 * The generations of reloading Lua skills (docs/web-ui.md, "Generations"): per skill, the
 * generation serving, a shadow being installed, one waiting for the owner's approval (with
 * what it would widen, and Approve / Reject), and the earlier ones folded away. Live: every
 * change of a generation's state is an `/api/events` update.
 */
export function GenerationsPage(): ReactNode {
  const live = useLive();
  const generations = useApi(() => listGenerations(), [live.version]);
  const [notice, setNotice] = useState<string | undefined>();
  if (generations.value === undefined) {
    return generations.error !== undefined ? <ErrorNotice error={generations.error} /> : <Loading />;
  }
  const bySkill = groupBySkill(generations.value);
  return (
    <section aria-labelledby="generations-heading">
      <h1 id="generations-heading">Generations</h1>
      <p className="muted">
        A Lua skill changes by generation swap: an edit builds a new generation and switches to it once it
        loads and passes its health check. A change that widens what the skill may do waits here for your
        approval; the generation serving now keeps serving until you answer.
      </p>
      <div aria-live="polite">
        {notice !== undefined ? (
          <p className="notice notice-ok" role="status">
            {notice}
          </p>
        ) : null}
      </div>
      {bySkill.length === 0 ? (
        <p className="muted">No Lua skill is reloading in this server.</p>
      ) : (
        bySkill.map(([skill, records]) => (
          <SkillGenerations
            key={skill}
            skill={skill}
            records={records}
            onAnswered={(text) => {
              setNotice(text);
              generations.reload();
            }}
          />
        ))
      )}
    </section>
  );
}

/** The states shown in the main table; the others are earlier generations. */
const CURRENT: ReadonlySet<GenerationState> = new Set(["active", "shadow", "waiting_approval", "draining"]);

/** The words of a state. */
const STATE_TEXT: Readonly<Record<GenerationState, string>> = {
  active: "active",
  shadow: "shadow",
  waiting_approval: "waiting for approval",
  draining: "draining",
  closed: "closed",
  rejected: "rejected",
};

function pillClass(state: GenerationState): string {
  if (state === "active") return "pill on";
  if (state === "waiting_approval" || state === "rejected") return "pill warn";
  return "pill off";
}

/** Skills in name order, each with its generations newest first. */
function groupBySkill(records: readonly Generation[]): [string, Generation[]][] {
  const groups = new Map<string, Generation[]>();
  for (const record of records) groups.set(record.skill, [...(groups.get(record.skill) ?? []), record]);
  return [...groups]
    .map(([skill, list]): [string, Generation[]] => [skill, list.sort((a, b) => b.number - a.number)])
    .sort(([a], [b]) => a.localeCompare(b));
}

function SkillGenerations(props: {
  readonly skill: string;
  readonly records: readonly Generation[];
  readonly onAnswered: (text: string) => void;
}): ReactNode {
  const current = props.records.filter((record) => CURRENT.has(record.state));
  const earlier = props.records.filter((record) => !CURRENT.has(record.state));
  const headingId = `generations-${props.skill}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.skill}</h2>
      {current.length === 0 ? (
        <p className="muted">No generation is serving.</p>
      ) : (
        <GenerationTable
          label={`Generations of ${props.skill}`}
          records={current}
          onAnswered={props.onAnswered}
        />
      )}
      {earlier.length > 0 ? (
        <details>
          <summary>Earlier generations ({earlier.length})</summary>
          <GenerationTable
            label={`Earlier generations of ${props.skill}`}
            records={earlier}
            onAnswered={props.onAnswered}
          />
        </details>
      ) : null}
    </section>
  );
}

function GenerationTable(props: {
  readonly label: string;
  readonly records: readonly Generation[];
  readonly onAnswered: (text: string) => void;
}): ReactNode {
  return (
    <table className="generations-table" aria-label={props.label}>
      <colgroup>
        <col className="col-number" />
        <col className="col-state" />
        <col className="col-digest" />
        <col className="col-built" />
        <col />
        <col className="col-actions" />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Generation</th>
          <th scope="col">State</th>
          <th scope="col">Manifest digest</th>
          <th scope="col">Built</th>
          <th scope="col">Widening or detail</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.records.map((record) => (
          <GenerationRow key={record.id} record={record} onAnswered={props.onAnswered} />
        ))}
      </tbody>
    </table>
  );
}

function GenerationRow(props: {
  readonly record: Generation;
  readonly onAnswered: (text: string) => void;
}): ReactNode {
  const { record } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const answer = async (choice: "approve" | "reject"): Promise<void> => {
    if (
      choice === "approve" &&
      !window.confirm(
        `Switch ${record.skill} to generation ${record.number}? It may then:\n${record.widening.join("\n")}`,
      )
    )
      return;
    setBusy(true);
    setError(undefined);
    try {
      await answerGeneration(record.id, choice);
      props.onAnswered(
        choice === "approve"
          ? `Approved ${record.id}: the server switches to it and drains the old generation.`
          : `Rejected ${record.id}: the active generation keeps serving.`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr aria-label={`Generation ${record.id}`}>
      <th scope="row">{record.number}</th>
      <td>
        <span className={pillClass(record.state)}>{STATE_TEXT[record.state]}</span>
      </td>
      <td>
        {record.manifestDigest === "" ? (
          "none"
        ) : (
          <code title={record.manifestDigest}>{record.manifestDigest.slice(0, 12)}</code>
        )}
      </td>
      <td>
        <time dateTime={record.createdAt}>{new Date(record.createdAt).toLocaleString()}</time>
      </td>
      <td>
        {record.widening.length > 0 && record.state !== "waiting_approval" ? (
          <span className="muted">
            {record.state === "rejected" ? "Would have widened:" : "Widened, approved:"}
          </span>
        ) : null}
        {record.widening.length > 0 ? (
          <ul aria-label="Widening">
            {record.widening.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        ) : null}
        {record.detail !== undefined ? <span className="muted">{record.detail}</span> : null}
      </td>
      <td>
        {record.state === "waiting_approval" ? (
          <div className="actions">
            <button type="button" className="primary" disabled={busy} onClick={() => void answer("approve")}>
              Approve
            </button>
            <button type="button" disabled={busy} onClick={() => void answer("reject")}>
              Reject
            </button>
          </div>
        ) : null}
        {error !== undefined ? <ErrorNotice error={error} /> : null}
      </td>
    </tr>
  );
}
