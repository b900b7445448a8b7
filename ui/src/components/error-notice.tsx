import type { ReactNode } from "react";
import { ApiError } from "../api/client.js";

/** Words for the refusals a person meets most; the server's own message follows. */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  skill_changed: "This skill changed since you looked.",
  unknown_hash: "This skill changed since you looked.",
  draft_locked: "The draft is locked: the owner already enabled or edited it.",
  script_check_failed: "The script does not pass the check.",
  zip_too_large: "The zip is larger than the import limit.",
  plan_expired: "The plan expired.",
  plan_not_found: "The plan is gone (approved, rejected or expired).",
  builtin_read_only: "Built-in skills are read-only.",
  not_found: "Not found.",
  unauthorized: "You are signed out.",
};

/** The code of an error, or undefined when it is not an API error. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

/** An error, in words, with its stable code; `action` adds a button (a reload). */
export function ErrorNotice(props: { readonly error: unknown; readonly action?: ReactNode }): ReactNode {
  const { error } = props;
  const code = error instanceof ApiError ? error.code : "network_error";
  const message = error instanceof Error ? error.message : String(error);
  const words = PLAIN_WORDS[code];
  return (
    <div className="notice notice-error" role="alert">
      {words !== undefined ? <strong>{words} </strong> : null}
      <span>{message}</span> <code className="code">{code}</code>
      {props.action !== undefined ? <div className="notice-action">{props.action}</div> : null}
    </div>
  );
}

/** A loading line, announced politely to screen readers. */
export function Loading(): ReactNode {
  return (
    <p className="muted" aria-live="polite">
      Loading…
    </p>
  );
}
