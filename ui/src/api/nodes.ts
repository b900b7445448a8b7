import { apiRequest, segment } from "./client.js";
import { listIn } from "./lists.js";

/** A node with its live state, as `GET /api/nodes` lists it. */
export interface NodeState {
  readonly name: string;
  readonly role: "node" | "worker";
  readonly addedAt: string;
  readonly enrolled: boolean;
  readonly enrolledAt?: string;
  readonly enrolmentExpiresAt?: string;
  readonly locked: boolean;
  readonly online: boolean;
  readonly connected: boolean;
  readonly lastHeartbeatAt?: string;
  readonly features: readonly string[];
  readonly sandbox?: { readonly available: boolean; readonly reason?: string };
  readonly os?: string;
  readonly arch?: string;
  readonly skills: Readonly<Record<string, string>>;
  readonly runsInFlight: number;
}

/** What adding a node answers: the one-time token and the command for the node. */
export interface AddedNode {
  readonly node: { readonly name: string; readonly role: "node" | "worker" };
  readonly token: string;
  readonly expiresAt: string;
  readonly command: string;
}

/** Every node with its live state (`GET /api/nodes`). */
export async function listNodes(): Promise<NodeState[]> {
  return listIn<NodeState>(await apiRequest("/nodes"), "nodes");
}

/** Adds a node (`POST /api/nodes`); the token in the answer is shown once. */
export function addNode(name: string, worker: boolean): Promise<AddedNode> {
  return apiRequest("/nodes", { method: "POST", json: worker ? { name, role: "worker" } : { name } });
}

/** Removes a node: its credential stops working and its channel closes. */
export function removeNode(name: string): Promise<unknown> {
  return apiRequest(`/nodes/${segment(name)}`, { method: "DELETE" });
}

/** Asks a node to sync now; `sent` is false when its channel is not open. */
export function syncNode(name: string): Promise<{ readonly sent: boolean }> {
  return apiRequest(`/nodes/${segment(name)}/sync`, { method: "POST", json: {} });
}
