import type { CallStatus } from "../observe/events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../policy/approvals.js";
import type { ToolTier } from "../policy/tiers.js";

/**
 * The lifecycle events an extension or a shell hook may hook, in the order a session meets
 * them. Hooking any other name throws, so a typo cannot silently hook nothing.
 */
export const EVENTS = [
  "session_start",
  "before_turn",
  "after_turn",
  "before_tool",
  "after_tool",
  "stop",
  "compact",
  "approval",
  "background_done",
  "watch",
] as const;

/** One of {@link EVENTS}. */
export type EventName = (typeof EVENTS)[number];

/** Whether `name` is one of {@link EVENTS}. */
export function isEventName(name: string): name is EventName {
  return (EVENTS as readonly string[]).includes(name);
}

/** The chat or job an event happens in. */
export interface EventScope {
  readonly kind: "chat" | "job";
  readonly id: string;
}

/** `before_tool`: a tool is about to be called with these (normalised, validated) arguments. */
export interface BeforeToolEvent {
  readonly scope?: EventScope;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly tier?: ToolTier;
  readonly skill?: string;
}

/** `after_tool`: a tool call ended; `result` is the text the model is about to see. */
export interface AfterToolEvent extends BeforeToolEvent {
  readonly result: string;
  readonly status: CallStatus;
}

/** `approval`: a person is being asked about a call (`answer` absent) or has answered. */
export interface ApprovalEvent {
  readonly scope?: EventScope;
  readonly request: ApprovalRequest;
  readonly answer?: ApprovalAnswer | "expired" | "deferred";
}

/**
 * What each event's hooks receive: one object of named fields. The fields listed are the
 * ones skillgate sends; a host firing an event itself may add more.
 */
export interface EventPayloads {
  /** A chat or job started (its first turn was built). */
  readonly session_start: { readonly scope?: EventScope };
  /** A person's or a job's prompt is about to go to the model. */
  readonly before_turn: { readonly scope?: EventScope; readonly prompt?: string };
  /** The model finished answering a prompt. */
  readonly after_turn: { readonly scope?: EventScope; readonly text?: string };
  readonly before_tool: BeforeToolEvent;
  readonly after_tool: AfterToolEvent;
  /** A chat or job ended or was stopped. */
  readonly stop: { readonly scope?: EventScope; readonly reason?: string };
  /** The host is about to compact a conversation's history. */
  readonly compact: { readonly scope?: EventScope };
  readonly approval: ApprovalEvent;
  /** Work started in the background (a queued run) finished. */
  readonly background_done: {
    readonly scope?: EventScope;
    readonly id?: string;
    readonly status?: string;
    readonly text?: string;
  };
  /** Watched files changed (extension files, skills); extensions are reloaded after it. */
  readonly watch: { readonly paths?: readonly string[] };
}

/**
 * What a `before_tool` hook may answer: a string is a reason to deny the call; `deny` denies
 * with a reason, `ask` makes a person approve it first, `args` replaces the arguments (they
 * are normalised and validated again). `undefined` lets the call go on as it is.
 */
export type BeforeToolAnswer =
  | string
  | { readonly deny?: string; readonly ask?: string; readonly args?: Readonly<Record<string, unknown>> }
  | undefined
  | null;

/** What an `after_tool` hook may answer: a string or `{ result }` replaces the result text. */
export type AfterToolAnswer = string | { readonly result?: string } | undefined | null;

/** A hook of one event. It may be async; a hook that throws is noted and skipped. */
export type Hook<Event extends EventName = EventName> = (payload: EventPayloads[Event]) => unknown;
