import { InvalidArgumentError } from "../../core/errors.js";
import { AgentFiles } from "../../nodes/agent/agent-files.js";
import { ControllerClient } from "../../nodes/agent/controller-client.js";
import { enrolAgent } from "../../nodes/agent/enrolment.js";
import { SkillCache } from "../../nodes/agent/skill-cache.js";
import { SkillSync } from "../../nodes/agent/skill-sync.js";
import { SyncedSkillFiles } from "./synced-skill-files.js";

/** What {@link openRemoteSkillFiles} is given (`skillgate worker --controller URL [--name N --enrol TOKEN]`). */
export interface RemoteSkillFilesOptions {
  /** The worker's own data folder: its enrolment (`node-agent/`) and its copies (`skills/`). */
  readonly dataFolder: string;
  readonly controllerUrl: string;
  /** The node name the owner added with `skillgate nodes add NAME --worker`; required to enrol. */
  readonly name?: string;
  /** The one-time enrolment token; without it the worker uses the enrolment stored before. */
  readonly enrolToken?: string;
  /** How often the copies are synced besides on demand (default a minute, as a node agent). */
  readonly syncIntervalMs?: number;
}

/**
 * A worker on another host gets its skill files the way a node does: enrolled once with the
 * owner's token (the controller's key pinned), then SkillSync into its own cache, first now and
 * then every minute and on demand. Returns the files and the node name it is enrolled as.
 *
 * @throws InvalidArgumentError when it is not enrolled and no token was given; the errors of
 *   enrolment (a refused token, an unreachable controller, another controller key)
 */
export async function openRemoteSkillFiles(
  options: RemoteSkillFilesOptions,
): Promise<{ files: SyncedSkillFiles; nodeName: string }> {
  const agentFiles = new AgentFiles(options.dataFolder);
  let identity = agentFiles.identity();
  if (options.enrolToken !== undefined) {
    if (options.name === undefined)
      throw new InvalidArgumentError("--name", "--enrol needs --name: the name the owner gave this worker");
    identity = await enrolAgent({
      controllerUrl: options.controllerUrl,
      name: options.name,
      token: options.enrolToken,
      files: agentFiles,
    });
  }
  if (identity === undefined)
    throw new InvalidArgumentError(
      "--enrol",
      "this worker is not enrolled with the controller: pass --name NAME --enrol TOKEN (from `skillgate nodes add NAME --worker`)",
    );
  const cache = new SkillCache({ dataFolder: options.dataFolder });
  const sync = new SkillSync({
    node: identity.name,
    controllerPublicKey: identity.controllerPublicKey,
    transport: new ControllerClient({
      controllerUrl: options.controllerUrl,
      credential: identity.credential,
    }),
    cache,
  });
  const files = new SyncedSkillFiles({ sync, cache });
  await files.sync();
  files.startPeriodicSync(options.syncIntervalMs ?? 60_000);
  return { files, nodeName: identity.name };
}
