import type { Logger } from "./logger.js";

/**
 * Telling the owner that an assistant wrote something to review (docs/notifications.md): after
 * a draft is saved or an edit is applied, each configured channel gets one message. Best
 * effort by contract: a channel that fails, refuses or hangs is logged with the error's type
 * only (never its message, which may carry the channel's address or token) and never stops
 * or delays the write that caused it beyond the timeout.
 */

/** What happened that the owner should look at. */
export type OwnerNotice =
  | {
      readonly kind: "draft-saved";
      readonly skill: string;
      readonly hash: string;
      /** True for a new draft, false for the assistant's rewrite of its own draft. */
      readonly created: boolean;
    }
  | {
      readonly kind: "edit-applied";
      readonly skill: string;
      readonly hash: string;
      /** The edit plan that was written. */
      readonly plan: string;
    };

/** The kinds of notice, for a receiver that filters. */
export type OwnerNoticeKind = OwnerNotice["kind"];

/**
 * One place to send notices. `webhook` posts the notice as JSON; `ntfy` posts a text message
 * to a topic address (ntfy's publish API, with `Title` and `Tags` headers); `gotify` posts
 * `{title, message, priority}` to a Gotify server's `/message` address.
 */
export interface NotificationChannel {
  readonly type: "webhook" | "ntfy" | "gotify";
  /** The http(s) address the message is posted to. */
  readonly url: string;
  /** A bearer token (`webhook`, `ntfy`) or the application token (`gotify`, sent as `X-Gotify-Key`). */
  readonly token?: string;
}

/** Options of {@link sendNotice}. */
export interface SendNoticeOptions {
  readonly channels: readonly NotificationChannel[];
  /** Each channel's request is cut after this long. */
  readonly timeoutMs: number;
  /** Where a failed channel is reported (error type only). */
  readonly logger: Logger;
  /** The fetch to use; the global one by default. */
  readonly fetch?: typeof fetch;
}

/** What became of one channel's message. */
export interface ChannelOutcome {
  readonly type: NotificationChannel["type"];
  readonly ok: boolean;
  /** Why it failed: an HTTP status as `http_<status>`, `timeout`, or the error's class name. */
  readonly error?: string;
}

/**
 * Sends `notice` to every channel at once and waits for all of them (each bounded by
 * `timeoutMs`). Never rejects: every failure becomes an outcome and one warning line.
 */
export async function sendNotice(notice: OwnerNotice, options: SendNoticeOptions): Promise<ChannelOutcome[]> {
  const send = options.fetch ?? fetch;
  return Promise.all(
    options.channels.map(async (channel): Promise<ChannelOutcome> => {
      const error = await sendOne(send, channel, notice, options.timeoutMs);
      if (error === undefined) return { type: channel.type, ok: true };
      options.logger.warn("owner notification failed", { channel: channel.type, error });
      return { type: channel.type, ok: false, error };
    }),
  );
}

/** The error's kind, or undefined when the receiver took the message. */
async function sendOne(
  send: typeof fetch,
  channel: NotificationChannel,
  notice: OwnerNotice,
  timeoutMs: number,
): Promise<string | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await send(channel.url, { method: "POST", ...requestOf(channel, notice), signal });
    // The body is not needed; cancelling it frees the connection.
    await response.body?.cancel().catch(() => {});
    return response.ok ? undefined : `http_${response.status}`;
  } catch (error) {
    if (signal.aborted) return "timeout";
    return error instanceof Error ? error.name : typeof error;
  }
}

function requestOf(
  channel: NotificationChannel,
  notice: OwnerNotice,
): { headers: Record<string, string>; body: string } {
  const title = noticeTitle(notice);
  const message = noticeText(notice);
  switch (channel.type) {
    case "webhook":
      return {
        headers: { "content-type": "application/json", ...bearer(channel) },
        body: JSON.stringify({ source: "skillgate", title, message, notice }),
      };
    case "ntfy":
      return {
        headers: {
          "content-type": "text/plain; charset=utf-8",
          title,
          tags: "skillgate",
          ...bearer(channel),
        },
        body: message,
      };
    case "gotify":
      return {
        headers: {
          "content-type": "application/json",
          ...(channel.token !== undefined ? { "x-gotify-key": channel.token } : {}),
        },
        body: JSON.stringify({ title, message, priority: 5 }),
      };
  }
}

function bearer(channel: NotificationChannel): Record<string, string> {
  return channel.token !== undefined ? { authorization: `Bearer ${channel.token}` } : {};
}

/** A notice's one-line title (header-safe: skill names are ASCII by the naming rule). */
export function noticeTitle(notice: OwnerNotice): string {
  return notice.kind === "draft-saved"
    ? `skillgate: draft ${notice.skill}`
    : `skillgate: ${notice.skill} edited`;
}

/** A notice in a sentence, for the push channels. */
export function noticeText(notice: OwnerNotice): string {
  if (notice.kind === "draft-saved")
    return `The assistant ${notice.created ? "drafted" : "rewrote its draft"} ${notice.skill} (hash ${notice.hash.slice(0, 8)}). It stays disabled until you review and enable it.`;
  return `Edit plan ${notice.plan} was applied to ${notice.skill} (hash ${notice.hash.slice(0, 8)}).`;
}
