import { type ErrorCode, SkillgateError } from "../../core/errors.js";

/** Why an agent refuses a skills manifest (docs/nodes.md, "The skills manifest"). */
export type ManifestErrorCode = Extract<
  ErrorCode,
  | "manifest_bad_signature"
  | "manifest_replayed"
  | "manifest_expired"
  | "manifest_wrong_node"
  | "manifest_invalid"
>;

/** Details of a manifest refusal; only the keys that apply are present. */
export interface ManifestErrorData {
  /** The sequence the manifest carried, when it could be read. */
  readonly sequence?: number | undefined;
  /** The last sequence the agent accepted (`manifest_replayed`). */
  readonly lastSequence?: number | undefined;
  /** The node the manifest names (`manifest_wrong_node`). */
  readonly node?: string | undefined;
  /** When it expired (`manifest_expired`), as ISO text. */
  readonly expiresAt?: string | undefined;
}

/** A refused manifest. The agent keeps its previous good set when it sees one. */
export class ManifestError extends SkillgateError<ManifestErrorData> {
  declare readonly code: ManifestErrorCode;

  constructor(code: ManifestErrorCode, message: string, data: ManifestErrorData = {}) {
    const present: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) if (value !== undefined) present[key] = value;
    super(code, message, present as ManifestErrorData);
  }
}

/** True when `error` is a {@link ManifestError}, optionally with the given code. */
export function isManifestError(error: unknown, code?: ManifestErrorCode): error is ManifestError {
  return error instanceof ManifestError && (code === undefined || error.code === code);
}
