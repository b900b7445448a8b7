import { type ErrorCode, SkillgateError } from "../../core/errors.js";

/** The codes the node registry and the agent routes refuse with (docs/nodes.md, "The controller"). */
export type NodeErrorCode = Extract<
  ErrorCode,
  | "invalid_node_name"
  | "node_exists"
  | "node_not_found"
  | "enrolment_refused"
  | "nodes_registry_corrupt"
  | "node_unauthorized"
  | "node_package_refused"
  | "controller_not_ready"
>;

/** The HTTP status of each node refusal. */
export const NODE_HTTP_STATUS: Readonly<Record<NodeErrorCode, number>> = Object.freeze({
  invalid_node_name: 400,
  node_exists: 409,
  node_not_found: 404,
  enrolment_refused: 401,
  nodes_registry_corrupt: 500,
  node_unauthorized: 401,
  node_package_refused: 404,
  controller_not_ready: 503,
});

/** Why an enrolment was refused; one code (`enrolment_refused`) for all, the reason in the data. */
export type EnrolmentRefusal = "unknown_node" | "already_enrolled" | "expired" | "wrong_token" | "locked";

/** A refusal of the node registry or of an agent route. */
export class NodeError extends SkillgateError<Record<string, unknown>> {
  declare readonly code: NodeErrorCode;

  constructor(code: NodeErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(code, message, data);
  }
}

/** The refusal of an enrolment, with its reason. */
export function enrolmentRefused(name: string, reason: EnrolmentRefusal): NodeError {
  const why: Record<EnrolmentRefusal, string> = {
    unknown_node: "no node of that name was added; run `skillgate nodes add NAME` on the controller",
    already_enrolled: "that node has enrolled already; remove it and add it again for a new token",
    expired: "the enrolment token has expired; remove the node and add it again for a new token",
    wrong_token: "the enrolment token is not the one issued for that node",
    locked: "too many wrong tokens were tried for that node; remove it and add it again",
  };
  return new NodeError("enrolment_refused", `enrolment of ${name} refused: ${why[reason]}`, {
    name,
    reason,
  });
}
