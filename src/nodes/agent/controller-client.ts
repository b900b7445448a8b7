import { type ErrorCode, SkillgateError } from "../../core/errors.js";
import { MAX_MANIFEST_BYTES } from "../manifest/manifest-codec.js";
import { DEFAULT_PACKAGE_LIMITS } from "../packages/package-limits.js";
import {
  AGENT_ROUTES,
  type EnrolRequest,
  type EnrolResponse,
  type Heartbeat,
  type HeartbeatResponse,
} from "../protocol.js";
import type { ManifestTransport } from "./skill-sync.js";

/** Why a request to the controller failed. */
export type ControllerErrorCode = Extract<
  ErrorCode,
  | "controller_unreachable"
  | "controller_timeout"
  | "controller_refused"
  | "controller_bad_response"
  | "controller_response_too_large"
>;

/** Details of a failed request. */
export interface ControllerErrorData {
  readonly url: string;
  /** The HTTP status, when the controller answered. */
  readonly status?: number | undefined;
  /** The controller's own error code from its JSON body, when it sent one. */
  readonly serverCode?: string | undefined;
}

/** A request to the controller that did not give a usable answer. */
export class ControllerRequestError extends SkillgateError<ControllerErrorData> {
  declare readonly code: ControllerErrorCode;

  constructor(
    code: ControllerErrorCode,
    message: string,
    data: ControllerErrorData,
    options?: { cause?: unknown },
  ) {
    const present: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) if (value !== undefined) present[key] = value;
    super(code, message, present as unknown as ControllerErrorData, options);
  }
}

/** Options shared by every request. */
export interface ControllerRequestOptions {
  /** Milliseconds a request may take, headers and body together (default 30 s). */
  readonly timeoutMs?: number;
  /** The `fetch` to use (default the global one). */
  readonly fetch?: typeof fetch;
}

/** Options of {@link ControllerClient}. */
export interface ControllerClientOptions extends ControllerRequestOptions {
  /** The controller's base URL, such as `http://controller:8787`. */
  readonly controllerUrl: string;
  /** The node credential from enrolment. */
  readonly credential: string;
}

/** Default request timeout. */
export const DEFAULT_CONTROLLER_TIMEOUT_MS = 30_000;
/** The most bytes of a small JSON answer (enrolment, heartbeat) or of an error body. */
const MAX_SMALL_BODY_BYTES = 64 * 1024;

/**
 * The agent's HTTP client for the agent routes ({@link AGENT_ROUTES}): every request carries
 * `Authorization: Bearer <credential>`, is cut at a timeout, and reads at most a bounded
 * body (the manifest 1 MiB and a little, a package at most its manifest size, or the
 * package limit when no size is known). It is SkillSync's {@link ManifestTransport}.
 */
export class ControllerClient implements ManifestTransport {
  readonly #base: string;
  readonly #credential: string;
  readonly #options: ControllerRequestOptions;

  constructor(options: ControllerClientOptions) {
    this.#base = options.controllerUrl.replace(/\/+$/, "");
    this.#credential = options.credential;
    this.#options = options;
  }

  /** `GET` {@link AGENT_ROUTES.manifest}: the signed manifest as JSON, unchecked (SkillSync verifies it). */
  async manifest(): Promise<unknown> {
    const body = await this.#request(
      "GET",
      AGENT_ROUTES.manifest,
      undefined,
      Math.ceil(MAX_MANIFEST_BYTES * 1.4),
    );
    return parseJson(body, this.#url(AGENT_ROUTES.manifest));
  }

  /**
   * `GET <packages>/<name>@<hash>`: the package's bytes, at most `expectedSize` (the
   * manifest's size; a longer answer is cut and refused `controller_response_too_large`).
   */
  async package(name: string, hash: string, expectedSize?: number): Promise<Uint8Array> {
    const path = `${AGENT_ROUTES.packages}/${encodeURIComponent(name)}@${hash}`;
    return this.#request("GET", path, undefined, expectedSize ?? DEFAULT_PACKAGE_LIMITS.maxPackageBytes);
  }

  /** `POST` {@link AGENT_ROUTES.heartbeat}. */
  async heartbeat(beat: Heartbeat): Promise<HeartbeatResponse> {
    const body = await this.#request("POST", AGENT_ROUTES.heartbeat, beat, MAX_SMALL_BODY_BYTES);
    const parsed = parseJson(body, this.#url(AGENT_ROUTES.heartbeat));
    const sequence = (parsed as { manifestSequence?: unknown } | null)?.manifestSequence;
    if (typeof sequence !== "number" || !Number.isSafeInteger(sequence))
      throw badResponse(this.#url(AGENT_ROUTES.heartbeat), "the heartbeat answer has no manifestSequence");
    return { manifestSequence: sequence };
  }

  #url(path: string): string {
    return `${this.#base}${path}`;
  }

  #request(method: "GET" | "POST", path: string, body: unknown, maxBytes: number): Promise<Buffer> {
    return requestController(this.#url(path), {
      method,
      body,
      maxBytes,
      credential: this.#credential,
      ...this.#options,
    });
  }
}

/**
 * `POST` {@link AGENT_ROUTES.enrol} with the one-time token (no credential yet). The answer
 * is checked for shape only; {@link enrolAgent} pins its key and stores it.
 */
export async function postEnrolment(
  controllerUrl: string,
  request: EnrolRequest,
  options: ControllerRequestOptions = {},
): Promise<EnrolResponse> {
  const url = `${controllerUrl.replace(/\/+$/, "")}${AGENT_ROUTES.enrol}`;
  const body = await requestController(url, {
    method: "POST",
    body: request,
    maxBytes: MAX_SMALL_BODY_BYTES,
    ...options,
  });
  const parsed = parseJson(body, url) as Partial<Record<keyof EnrolResponse, unknown>> | null;
  if (
    parsed === null ||
    typeof parsed !== "object" ||
    typeof parsed.name !== "string" ||
    typeof parsed.credential !== "string" ||
    parsed.credential.length === 0 ||
    parsed.credential.length > 1024 ||
    /\s/.test(parsed.credential) ||
    typeof parsed.controllerPublicKey !== "string"
  )
    throw badResponse(url, "the enrolment answer is not {name, credential, controllerPublicKey}");
  return {
    name: parsed.name,
    credential: parsed.credential,
    controllerPublicKey: parsed.controllerPublicKey,
  };
}

interface RequestSpec extends ControllerRequestOptions {
  readonly method: "GET" | "POST";
  readonly body: unknown;
  readonly maxBytes: number;
  readonly credential?: string;
}

/** One bounded, timed request; the body of a 2xx answer, or a {@link ControllerRequestError}. */
async function requestController(url: string, spec: RequestSpec): Promise<Buffer> {
  const timeoutMs = spec.timeoutMs ?? DEFAULT_CONTROLLER_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  // identity: a package is already gzip, and its SHA-256 is over those bytes; an HTTP layer
  // that compressed it again would have fetch hand back other bytes.
  const headers: Record<string, string> = {
    accept: "application/json, application/gzip",
    "accept-encoding": "identity",
  };
  if (spec.credential !== undefined) headers.authorization = `Bearer ${spec.credential}`;
  if (spec.body !== undefined) headers["content-type"] = "application/json";
  const send = (): Promise<Response> =>
    (spec.fetch ?? fetch)(url, {
      method: spec.method,
      headers,
      redirect: "error",
      signal: controller.signal,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    });
  try {
    let response: Response;
    try {
      response = await send().catch((error: unknown) => {
        // A kept-alive connection the controller closed just as it was reused fails at
        // once; a GET is safe to send again, once. A POST (enrolment uses its token) never is.
        if (spec.method !== "GET" || controller.signal.aborted) throw error;
        return send();
      });
    } catch (error) {
      if (controller.signal.aborted) throw timedOut(url, timeoutMs);
      throw new ControllerRequestError(
        "controller_unreachable",
        `the controller at ${url} cannot be reached (${causeOf(error)})`,
        { url },
        { cause: error },
      );
    }
    if (!response.ok) {
      const text = await readBounded(response, MAX_SMALL_BODY_BYTES, url, controller, timeoutMs).catch(
        () => undefined,
      );
      const serverCode = text === undefined ? undefined : errorCodeOf(text);
      throw new ControllerRequestError(
        "controller_refused",
        `the controller answered ${response.status}${serverCode === undefined ? "" : ` (${serverCode})`} for ${url}`,
        { url, status: response.status, serverCode },
      );
    }
    return await readBounded(response, spec.maxBytes, url, controller, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a body into memory, refusing it as soon as it passes `maxBytes`. */
async function readBounded(
  response: Response,
  maxBytes: number,
  url: string,
  controller: AbortController,
  timeoutMs: number,
): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    controller.abort();
    throw tooLarge(url, maxBytes);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        controller.abort();
        throw tooLarge(url, maxBytes);
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } catch (error) {
    if (error instanceof ControllerRequestError) throw error;
    if (controller.signal.aborted) throw timedOut(url, timeoutMs);
    throw new ControllerRequestError(
      "controller_unreachable",
      `the answer from ${url} was cut off (${causeOf(error)})`,
      { url },
      {
        cause: error,
      },
    );
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, length);
}

/** The low-level reason of a failed fetch: undici puts the socket's error code in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message.slice(0, 120);
  return error instanceof Error ? error.message.slice(0, 120) : String(error).slice(0, 120);
}

function parseJson(body: Buffer, url: string): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw badResponse(url, "the answer is not JSON");
  }
}

/** The `code` of an error body like `{"error": {"code": …}}` or `{"code": …}`, when it has one. */
function errorCodeOf(text: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(text.toString("utf8")) as { code?: unknown; error?: { code?: unknown } };
    const code = parsed.error?.code ?? parsed.code;
    return typeof code === "string" && /^[a-z0-9_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function badResponse(url: string, why: string): ControllerRequestError {
  return new ControllerRequestError("controller_bad_response", `${why} (${url})`, { url });
}

function tooLarge(url: string, maxBytes: number): ControllerRequestError {
  return new ControllerRequestError(
    "controller_response_too_large",
    `the answer from ${url} is larger than ${maxBytes} bytes`,
    {
      url,
    },
  );
}

function timedOut(url: string, timeoutMs: number): ControllerRequestError {
  return new ControllerRequestError(
    "controller_timeout",
    `the controller took more than ${timeoutMs} ms to answer ${url}`,
    {
      url,
    },
  );
}
