import { SkillgateError } from "../../core/errors.js";
import type { EnrolResponse } from "../protocol.js";
import type { AgentFiles, AgentIdentity } from "./agent-files.js";
import { type ControllerRequestOptions, postEnrolment } from "./controller-client.js";

/** What {@link enrolAgent} needs. */
export interface EnrolAgentOptions extends ControllerRequestOptions {
  /** The controller's base URL. */
  readonly controllerUrl: string;
  /** The node name the owner added (`skillgate nodes add NAME`). */
  readonly name: string;
  /** The one-time enrolment token the owner was shown. */
  readonly token: string;
  /** Where the agent keeps its credential and the pinned key. */
  readonly files: AgentFiles;
}

/**
 * Enrols this agent (docs/nodes.md, "Enrolment"): `POST` {@link AGENT_ROUTES.enrol} with the
 * token, then checks the answer names this node and carries an Ed25519 key that matches any
 * key pinned before, and only then stores the key (pinned), the name and the credential,
 * 0600. A controller presenting another key is refused and nothing is stored.
 *
 * @throws ControllerRequestError (the controller refused the token, or could not be reached),
 *   ControllerKeyChangedError, SkillgateError `agent_files_invalid`
 */
export async function enrolAgent(options: EnrolAgentOptions): Promise<AgentIdentity> {
  const response: EnrolResponse = await postEnrolment(
    options.controllerUrl,
    { name: options.name, token: options.token },
    options,
  );
  if (response.name !== options.name) {
    throw new SkillgateError(
      "agent_files_invalid",
      `the controller enrolled this agent as ${response.name}, not ${options.name}`,
      { name: response.name },
    );
  }
  options.files.saveEnrolment(response);
  return {
    name: response.name,
    credential: response.credential,
    controllerPublicKey: response.controllerPublicKey,
  };
}
