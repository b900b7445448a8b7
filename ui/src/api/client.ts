/**
 * The one way the web UI talks to the server: JSON over fetch with the session cookie and the
 * CSRF header every state-changing request needs (docs/server.md). An error answer becomes an
 * {@link ApiError} carrying the server's stable code, message and data.
 */

/** The header state-changing requests carry (the server refuses them without it). */
export const CSRF_HEADER = "X-Skillgate-CSRF";

/** An error answer of the API: `{"error": {code, message, data}}` and its status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** Called when an answer says the session is gone (401), so the app shows the login page. */
let onUnauthorized: (() => void) | undefined;

/** Sets what happens when the server answers 401. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** What a request sends. */
export interface RequestInput {
  readonly method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Sent as JSON. */
  readonly json?: unknown;
  /** Sent as it is (a zip). */
  readonly body?: Blob | ArrayBuffer;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

/** Reads an error answer; a body that is not the API's error shape keeps the status in words. */
async function readError(response: Response): Promise<ApiError> {
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  const error =
    typeof parsed === "object" && parsed !== null && "error" in parsed
      ? (parsed as { error: { code?: unknown; message?: unknown; data?: unknown } }).error
      : undefined;
  const code = typeof error?.code === "string" ? error.code : `http_${response.status}`;
  const message =
    typeof error?.message === "string" ? error.message : response.statusText || "request failed";
  const data =
    typeof error?.data === "object" && error.data !== null ? (error.data as Record<string, unknown>) : {};
  return new ApiError(response.status, code, message, data);
}

/** Sends one request to `/api{path}` and reads its JSON answer (or nothing for 204). */
export async function apiRequest<Result>(path: string, input: RequestInput = {}): Promise<Result> {
  const method = input.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET") headers[CSRF_HEADER] = "1";
  let body: BodyInit | undefined;
  if (input.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(input.json);
  } else if (input.body !== undefined) {
    headers["Content-Type"] = input.contentType ?? "application/octet-stream";
    body = input.body;
  }
  const response = await fetch(`/api${path}`, {
    method,
    headers,
    credentials: "same-origin",
    ...(body !== undefined ? { body } : {}),
    ...(input.signal !== undefined ? { signal: input.signal } : {}),
  });
  if (!response.ok) {
    const error = await readError(response);
    if (response.status === 401) onUnauthorized?.();
    throw error;
  }
  if (response.status === 204) return undefined as Result;
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("json")) return (await response.text()) as Result;
  return (await response.json()) as Result;
}

/** A path segment, encoded. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** A file path inside a skill, each segment encoded and the slashes kept. */
export function filePath(path: string): string {
  return path.split("/").map(segment).join("/");
}

/** A query string from the values that are set, with its `?`. */
export function query(values: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
