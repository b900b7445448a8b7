import type { AuditEvent, AuditSink, CallStatus } from "./events.js";

/** Audit sinks that are not files: a list for tests, a fan-out, and the chat issue counter. */

/** Keeps every event in memory, in order: for tests and for hosts that forward events elsewhere. */
export class MemoryAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];

  record(event: AuditEvent): void {
    this.events.push(event);
  }
}

/**
 * One sink that records each event to every sink in `sinks`, in order. A sink that throws
 * is skipped for that event (and `onError` told); the others still get it.
 */
export function combineAuditSinks(
  sinks: readonly AuditSink[],
  onError: (error: unknown) => void = () => {},
): AuditSink {
  return {
    record(event) {
      for (const sink of sinks) {
        try {
          sink.record(event);
        } catch (error) {
          try {
            onError(error);
          } catch {
            // Auditing never fails the call it records.
          }
        }
      }
    },
  };
}

/** What counts a chat's or job's troubled calls: the chat log does. */
export interface OutcomeRecorder {
  recordOutcome(scope: AuditEvent["scope"], status: CallStatus): unknown;
}

/**
 * A sink that counts each finished call's outcome into `recorder` (docs/audit.md, "The chat
 * database", issue counts): only `tool-call-finished` events are counted, so an approval answered
 * "decline" and the call that then finishes `declined` count once.
 */
export function chatIssuesSink(recorder: OutcomeRecorder): AuditSink {
  return {
    record(event) {
      if (event.type === "tool-call-finished" && event.status !== undefined)
        recorder.recordOutcome(event.scope, event.status);
    },
  };
}
