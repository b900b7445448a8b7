import { isPlainObject } from "../core/safe-json.js";
import { bounded, unknownKeys } from "./config-fields.js";

/**
 * The `notifications` section of config.yaml (docs/notifications.md): where the owner is told
 * that a draft was saved or an edit applied. Every channel is checked when the file is read,
 * so a typo is an `invalid_config` problem, not a notification that silently never arrives.
 */
export interface NotificationsConfig {
  /** Each channel's request is cut after this many seconds. */
  readonly timeoutSeconds: number;
  readonly channels: readonly NotificationChannelConfig[];
}

/** One channel as configured. */
export interface NotificationChannelConfig {
  readonly type: "webhook" | "ntfy" | "gotify";
  readonly url: string;
  readonly token?: string;
}

/** No channels; 5 seconds a request. */
export const DEFAULT_NOTIFICATIONS_CONFIG: NotificationsConfig = { timeoutSeconds: 5, channels: [] };

/** Channels one file may name. */
export const MAX_NOTIFICATION_CHANNELS = 10;

const TYPES = ["webhook", "ntfy", "gotify"] as const;
const TIMEOUT_BOUNDS = { min: 1, max: 60 } as const;
/** A token is sent in a header: printable ASCII, no spaces, bounded. */
const TOKEN_PATTERN = /^[\x21-\x7e]{1,512}$/;

/** Reads the `notifications` section, adding every problem to `problems`. */
export function readNotificationsConfig(
  section: Record<string, unknown>,
  problems: string[],
): NotificationsConfig {
  unknownKeys(section, "notifications", ["timeout_seconds", "channels"], problems);
  const timeoutSeconds = bounded(
    section.timeout_seconds,
    "notifications.timeout_seconds",
    TIMEOUT_BOUNDS,
    DEFAULT_NOTIFICATIONS_CONFIG.timeoutSeconds,
    problems,
  );
  const listed = section.channels;
  if (listed === undefined || listed === null) return { timeoutSeconds, channels: [] };
  if (!Array.isArray(listed)) {
    problems.push('"notifications.channels" must be a list of channels');
    return { timeoutSeconds, channels: [] };
  }
  if (listed.length > MAX_NOTIFICATION_CHANNELS)
    problems.push(`"notifications.channels" may list at most ${MAX_NOTIFICATION_CHANNELS} channels`);
  const channels: NotificationChannelConfig[] = [];
  listed.slice(0, MAX_NOTIFICATION_CHANNELS).forEach((item: unknown, index) => {
    const channel = readChannel(item, `notifications.channels[${index}]`, problems);
    if (channel !== undefined) channels.push(channel);
  });
  return { timeoutSeconds, channels };
}

function readChannel(
  item: unknown,
  where: string,
  problems: string[],
): NotificationChannelConfig | undefined {
  if (!isPlainObject(item)) {
    problems.push(`"${where}" must be a mapping with type and url`);
    return undefined;
  }
  unknownKeys(item, where, ["type", "url", "token"], problems);
  const { type, url, token } = item;
  let ok = true;
  if (typeof type !== "string" || !(TYPES as readonly string[]).includes(type)) {
    problems.push(`"${where}.type" must be one of ${TYPES.join(", ")}`);
    ok = false;
  }
  if (typeof url !== "string" || !isHttpUrl(url)) {
    problems.push(`"${where}.url" must be an http:// or https:// address without user or password`);
    ok = false;
  }
  if (token !== undefined && token !== null && (typeof token !== "string" || !TOKEN_PATTERN.test(token))) {
    problems.push(`"${where}.token" must be text of printable characters without spaces (at most 512)`);
    ok = false;
  }
  if (!ok) return undefined;
  return {
    type: type as NotificationChannelConfig["type"],
    url: url as string,
    ...(typeof token === "string" ? { token } : {}),
  };
}

/** An http(s) address; credentials in it are refused, since they would end up in logs and configs shown around. */
function isHttpUrl(text: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return false;
  }
  return (
    (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    parsed.username === "" &&
    parsed.password === ""
  );
}
