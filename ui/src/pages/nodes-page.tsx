import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { type AddedNode, addNode, listNodes, type NodeState, removeNode, syncNode } from "../api/nodes.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { useLive } from "../live.js";
import { useApi } from "../use-api.js";

/** How often the page reads the nodes again between live updates (heartbeats come every 15 s). */
const REFRESH_MS = 15_000;

/**
 * The named servers (docs/nodes.md): each node's state, adding one (its enrolment token and
 * agent command are shown once), removing one and asking one to sync.
 */
export function NodesPage(): ReactNode {
  const live = useLive();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((value) => value + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const nodes = useApi(() => listNodes(), [live.version, tick]);
  const [added, setAdded] = useState<AddedNode | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  if (nodes.value === undefined) {
    return nodes.error !== undefined ? <ErrorNotice error={nodes.error} /> : <Loading />;
  }
  return (
    <section aria-labelledby="nodes-heading">
      <h1 id="nodes-heading">Nodes</h1>
      <p className="muted">
        Named servers run node skills with their own agent; workers take queue runs. A node is online while
        its channel is open and it sent a heartbeat in the last 45 seconds.
      </p>
      <AddNodeForm
        onAdded={(answer) => {
          setAdded(answer);
          setNotice(undefined);
          nodes.reload();
        }}
      />
      {added !== undefined ? <AddedToken added={added} onDone={() => setAdded(undefined)} /> : null}
      <div aria-live="polite">
        {notice !== undefined ? (
          <p className="notice notice-ok" role="status">
            {notice}
          </p>
        ) : null}
      </div>
      {nodes.value.length === 0 ? (
        <p className="muted">No nodes yet.</p>
      ) : (
        <table aria-label="Nodes">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">Features</th>
              <th scope="col">Skills held</th>
              <th scope="col">Runs</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {nodes.value.map((node) => (
              <NodeRow
                key={node.name}
                node={node}
                onChanged={(text) => {
                  setNotice(text);
                  nodes.reload();
                }}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A node's state in words. */
function stateText(node: NodeState): string {
  if (!node.enrolled) return node.locked ? "locked" : "not enrolled";
  return node.online ? "online" : "offline";
}

function NodeRow(props: { readonly node: NodeState; readonly onChanged: (text: string) => void }): ReactNode {
  const { node } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const act = async (action: "sync" | "remove"): Promise<void> => {
    if (action === "remove" && !window.confirm(`Remove ${node.name}? Its credential stops working now.`))
      return;
    setBusy(true);
    setError(undefined);
    try {
      if (action === "remove") {
        await removeNode(node.name);
        props.onChanged(`Removed ${node.name}.`);
      } else {
        const answer = await syncNode(node.name);
        props.onChanged(
          answer.sent
            ? `Asked ${node.name} to sync.`
            : `${node.name} is not connected; it syncs when it connects.`,
        );
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const held = Object.entries(node.skills);
  const state = stateText(node);
  return (
    <tr aria-label={`Node ${node.name}`}>
      <th scope="row">{node.name}</th>
      <td>{node.role}</td>
      <td>
        <span className={`pill ${state === "online" ? "on" : "off"}`}>{state}</span>
      </td>
      <td>
        {node.lastHeartbeatAt !== undefined ? new Date(node.lastHeartbeatAt).toLocaleString() : "never"}
      </td>
      <td>{node.features.length > 0 ? node.features.join(", ") : "none"}</td>
      <td>
        {held.length === 0
          ? "none"
          : held.map(([name, hash]) => (
              <code key={name} title={hash}>
                {name}@{hash.slice(0, 8)}{" "}
              </code>
            ))}
      </td>
      <td>{node.runsInFlight}</td>
      <td>
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void act("sync")}>
            Sync
          </button>
          <button type="button" disabled={busy} onClick={() => void act("remove")}>
            Remove
          </button>
        </div>
        {error !== undefined ? <ErrorNotice error={error} /> : null}
      </td>
    </tr>
  );
}

function AddNodeForm(props: { readonly onAdded: (added: AddedNode) => void }): ReactNode {
  const [name, setName] = useState("");
  const [worker, setWorker] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      props.onAdded(await addNode(name.trim(), worker));
      setName("");
      setWorker(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" aria-label="Add a node" onSubmit={(event) => void submit(event)}>
      <h2>Add a node</h2>
      <label>
        Name{" "}
        <input
          name="node-name"
          value={name}
          pattern="[a-z0-9][a-z0-9-]{0,62}"
          required
          onChange={(event) => setName(event.target.value)}
        />
      </label>{" "}
      <label>
        <input type="checkbox" checked={worker} onChange={(event) => setWorker(event.target.checked)} /> Queue
        worker
      </label>{" "}
      <button type="submit" className="primary" disabled={busy}>
        Add
      </button>
      {error !== undefined ? <ErrorNotice error={error} /> : null}
    </form>
  );
}

/** The enrolment token and the agent command, shown this once. */
function AddedToken(props: { readonly added: AddedNode; readonly onDone: () => void }): ReactNode {
  const { added } = props;
  return (
    <section className="card" aria-label="Enrolment token">
      <h2>Enrol {added.node.name}</h2>
      <p>
        Run this on the node. The token is shown only now and works once, until{" "}
        {new Date(added.expiresAt).toLocaleString()}.
      </p>
      <pre className="raw" data-testid="agent-command">
        {added.command}
      </pre>
      <button type="button" onClick={props.onDone}>
        Done
      </button>
    </section>
  );
}
