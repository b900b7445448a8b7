import { type ReactNode, useEffect } from "react";
import { getQueueStatus, type QueueStatus } from "../api/queue.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { useApi } from "../use-api.js";

/** How often the page reads the status again while it is shown. */
const REFRESH_MS = 3000;

/** The counts in the order a run goes through them. */
const COUNTS: ReadonlyArray<{ key: keyof QueueStatus["counts"]; label: string }> = [
  { key: "waiting", label: "Waiting" },
  { key: "active", label: "Active" },
  { key: "done", label: "Done" },
  { key: "interrupted", label: "Interrupted" },
  { key: "failed", label: "Failed" },
];

/**
 * The worker pool (docs/queue.md): the counts of the configured backend and its live workers,
 * read again every few seconds while the page is open. `interrupted` runs may or may not have
 * started and are never run again.
 */
export function QueuePage(): ReactNode {
  const status = useApi(() => getQueueStatus(), []);
  const reload = status.reload;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const value = status.value;
  return (
    <section aria-labelledby="queue-heading">
      <h1 id="queue-heading">Worker pool</h1>
      {status.error !== undefined ? <ErrorNotice error={status.error} /> : null}
      {value === undefined && status.loading ? <Loading /> : null}
      {value !== undefined ? (
        <>
          <p className="muted">
            Backend <code>{value.backend}</code>, at most {value.capacity} waiting. An interrupted run may or
            may not have started; it is never run again.
          </p>
          <dl className="counts" aria-label="Queue counts">
            {COUNTS.map((count) => (
              <div key={count.key} data-testid={`queue-${count.key}`}>
                <dt>{count.label}</dt>
                <dd>{value.counts[count.key]}</dd>
              </div>
            ))}
          </dl>
          <h2>Workers</h2>
          {value.workers.length === 0 ? (
            <p className="muted">
              No live worker. Start one with <code>skillgate worker</code>.
            </p>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Worker</th>
                    <th scope="col">Host</th>
                    <th scope="col">Running</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {value.workers.map((worker) => (
                    <tr key={`${worker.host}/${worker.name}/${worker.pid ?? ""}`}>
                      <td>{worker.name}</td>
                      <td>{worker.host}</td>
                      <td>
                        {worker.running} of {worker.concurrency}
                      </td>
                      <td>{new Date(worker.lastSeen).toLocaleString()}</td>
                      <td>{worker.stopping ? "stopping" : "taking requests"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      ) : null}
    </section>
  );
}
