import { type ReactNode, useState } from "react";
import { type AuditFilters, getAudit } from "../api/history.js";
import type { AuditEvent } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { useApi } from "../use-api.js";

/** The audit trail with filters by skill, chat and time, a page at a time. */
export function AuditPage(props: { readonly skill?: string; readonly chat?: string }): ReactNode {
  const [draft, setDraft] = useState({ skill: props.skill ?? "", chat: props.chat ?? "", since: "" });
  const [filters, setFilters] = useState<AuditFilters>({
    ...(props.skill !== undefined ? { skill: props.skill } : {}),
    ...(props.chat !== undefined ? { chat: props.chat } : {}),
  });
  const [earlier, setEarlier] = useState<AuditEvent[]>([]);
  const page = useApi(() => getAudit(filters), [filters]);
  const apply = (): void => {
    setEarlier([]);
    setFilters({
      ...(draft.skill !== "" ? { skill: draft.skill } : {}),
      ...(draft.chat !== "" ? { chat: draft.chat } : {}),
      ...(draft.since !== "" ? { since: new Date(draft.since).toISOString() } : {}),
    });
  };
  const events = [...earlier, ...(page.value?.events ?? [])];
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit trail</h1>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <label className="field" htmlFor="audit-skill">
          <span>Skill</span>
          <input
            id="audit-skill"
            value={draft.skill}
            onChange={(event) => setDraft({ ...draft, skill: event.target.value })}
          />
        </label>
        <label className="field" htmlFor="audit-chat">
          <span>Chat</span>
          <input
            id="audit-chat"
            value={draft.chat}
            onChange={(event) => setDraft({ ...draft, chat: event.target.value })}
          />
        </label>
        <label className="field" htmlFor="audit-since">
          <span>Since</span>
          <input
            id="audit-since"
            type="datetime-local"
            value={draft.since}
            onChange={(event) => setDraft({ ...draft, since: event.target.value })}
          />
        </label>
        <button type="submit">Filter</button>
      </form>
      {page.error !== undefined ? <ErrorNotice error={page.error} /> : null}
      {page.value === undefined && page.loading ? <Loading /> : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Tool</th>
              <th scope="col">Skill</th>
              <th scope="col">Chat</th>
              <th scope="col">Rule</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={`${event.requestId}:${event.type}:${event.time}`}>
                <td>{new Date(event.time).toLocaleString()}</td>
                <td>{event.type}</td>
                <td>
                  <code>{event.tool}</code>
                </td>
                <td>
                  {event.skill ?? ""}
                  {event.hash8 !== undefined ? <code className="hash"> {event.hash8}</code> : null}
                </td>
                <td>{event.scope.id}</td>
                <td>{event.rule ?? ""}</td>
                <td>{event.status ?? event.answer ?? event.decision ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.length === 0 && page.value !== undefined ? <p className="muted">No events match.</p> : null}
      {page.value?.next !== undefined ? (
        <button
          type="button"
          onClick={() => {
            setEarlier(events);
            setFilters({
              ...filters,
              ...(page.value?.next !== undefined ? { cursor: page.value.next } : {}),
            });
          }}
        >
          More
        </button>
      ) : null}
    </section>
  );
}
