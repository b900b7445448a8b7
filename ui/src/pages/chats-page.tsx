import type { ReactNode } from "react";
import { getTranscript, listChats } from "../api/history.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { useLive } from "../live.js";
import { useApi } from "../use-api.js";

/** Chats and jobs, newest first, with the calls that went wrong in each. */
export function ChatsPage(): ReactNode {
  const live = useLive();
  const chats = useApi(() => listChats(), [live.version]);
  if (chats.value === undefined) {
    return chats.error !== undefined ? <ErrorNotice error={chats.error} /> : <Loading />;
  }
  return (
    <section aria-labelledby="chats-heading">
      <h1 id="chats-heading">Chats</h1>
      {chats.value.length === 0 ? <p className="muted">No chats yet.</p> : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Chat</th>
              <th scope="col">Declined</th>
              <th scope="col">Expired</th>
              <th scope="col">Failed</th>
              <th scope="col">Timed out</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {chats.value.map((chat) => (
              <tr key={`${chat.kind}:${chat.id}`}>
                <th scope="row">
                  <a href={`#/chats/${encodeURIComponent(chat.id)}`}>{chat.title || chat.id}</a>
                  {chat.kind === "job" ? <span className="pill">job</span> : null}
                  {chat.reviewed ? <span className="pill">reviewed</span> : null}
                </th>
                <td>{chat.counts.declined}</td>
                <td>{chat.counts.expired}</td>
                <td>{chat.counts.failed}</td>
                <td>{chat.counts.timedOut}</td>
                <td>{new Date(chat.updated).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** One chat's transcript, as stored (long messages clipped, which it says). */
export function TranscriptPage(props: { readonly id: string }): ReactNode {
  const transcript = useApi(() => getTranscript(props.id), [props.id]);
  if (transcript.value === undefined) {
    return transcript.error !== undefined ? <ErrorNotice error={transcript.error} /> : <Loading />;
  }
  return (
    <section aria-labelledby="transcript-heading">
      <p>
        <a href="#/chats">← Chats</a> ·{" "}
        <a href={`#/audit?chat=${encodeURIComponent(props.id)}`}>Audit of this chat</a>
      </p>
      <h1 id="transcript-heading">Chat {props.id}</h1>
      {transcript.value.note !== undefined ? <p className="muted">{transcript.value.note}</p> : null}
      <ol className="transcript">
        {transcript.value.messages.map((message, index) => (
          // Messages have no id; their order is fixed.
          // biome-ignore lint/suspicious/noArrayIndexKey: a transcript never reorders.
          <li key={index} className={`message role-${message.role}`}>
            <div className="muted small">
              {message.role} · {new Date(message.time).toLocaleString()}
            </div>
            <pre className="message-text">{message.text}</pre>
            {message.clippedChars > 0 ? (
              <div className="muted small">{message.clippedChars} characters not shown</div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
