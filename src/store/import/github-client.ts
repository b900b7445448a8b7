import { ImportRefusedError } from "./import-errors.js";

/** How the client reaches the API. */
export interface GithubClientOptions {
  /** `https://api.github.com`, or a test server. Requests never leave this origin. */
  readonly apiBaseUrl: string;
  /** Sent as `Authorization: Bearer …` when given, and only to `apiBaseUrl`'s origin. */
  readonly token?: string | undefined;
  readonly userAgent: string;
  readonly fetch: typeof globalThis.fetch;
  /** Time for one request, headers and body together. */
  readonly requestTimeoutMs: number;
  /** Aborts everything: the whole import's deadline and the caller's cancellation. */
  readonly signal: AbortSignal;
}

const JSON_TYPE = /^application\/json\b/i;
const RAW_TYPE = /^application\/(?:vnd\.github(?:\.v3)?\.raw\b|octet-stream\b)/i;
const MAX_REDIRECTS = 3;

/**
 * A small GitHub REST client that trusts nothing it is sent: every body is read through a
 * byte cap, every answer's content type is checked, timeouts cover headers and body, and
 * redirects are followed only within the API's own origin (a renamed repository) so a
 * token never travels elsewhere. Each failure is an {@link ImportRefusedError} with a
 * stable code.
 */
export class GithubClient {
  readonly #options: GithubClientOptions;
  readonly #origin: string;
  readonly #base: string;

  constructor(options: GithubClientOptions) {
    this.#options = options;
    const base = new URL(options.apiBaseUrl);
    this.#origin = base.origin;
    this.#base = base.href.replace(/\/+$/, "");
  }

  /** GETs a JSON document at `apiPath` (starting with `/`), at most `maxBytes` long. */
  async getJson(apiPath: string, maxBytes: number): Promise<unknown> {
    const url = this.#base + apiPath;
    return this.#withTimeout(url, async (signal) => {
      const response = await this.#request(url, "application/vnd.github+json", signal);
      this.#checkType(response, url, JSON_TYPE, "JSON");
      const body = await readCapped(response, url, maxBytes);
      try {
        return JSON.parse(body.toString("utf8")) as unknown;
      } catch (error) {
        throw new ImportRefusedError(
          "github_bad_response",
          `GitHub answered ${url} with malformed JSON`,
          { url },
          {
            cause: error,
          },
        );
      }
    });
  }

  /**
   * GETs the raw bytes of a file at `apiPath`; the body must be exactly `expectedSize`
   * bytes (the size the folder listing gave): more is `github_response_too_large`, fewer
   * is `github_truncated`.
   */
  async getRaw(apiPath: string, expectedSize: number): Promise<Buffer> {
    const url = this.#base + apiPath;
    return this.#withTimeout(url, async (signal) => {
      const response = await this.#request(url, "application/vnd.github.raw+json", signal);
      this.#checkType(response, url, RAW_TYPE, "raw file");
      const body = await readCapped(response, url, expectedSize);
      if (body.length < expectedSize) {
        throw new ImportRefusedError(
          "github_truncated",
          `GitHub sent ${body.length} of the ${expectedSize} bytes of ${url}`,
          { url, actual: body.length, limit: expectedSize },
        );
      }
      return body;
    });
  }

  /** Runs one request under its own deadline and the import's signal; maps aborts to codes. */
  async #withTimeout<T>(url: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const requestDeadline = AbortSignal.timeout(this.#options.requestTimeoutMs);
    const signal = AbortSignal.any([this.#options.signal, requestDeadline]);
    try {
      return await work(signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      const reason: unknown = signal.reason;
      if (reason instanceof Error && reason.name === "TimeoutError") {
        throw new ImportRefusedError(
          "github_timeout",
          `GitHub did not answer ${url} in time`,
          { url },
          {
            cause: error,
          },
        );
      }
      // The caller cancelled: report their reason, not ours.
      throw reason ?? error;
    }
  }

  async #request(url: string, accept: string, signal: AbortSignal): Promise<Response> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const headers: Record<string, string> = {
        Accept: accept,
        "User-Agent": this.#options.userAgent,
        "X-GitHub-Api-Version": "2022-11-28",
      };
      if (this.#options.token !== undefined) headers.Authorization = `Bearer ${this.#options.token}`;
      let response: Response;
      try {
        response = await this.#options.fetch(current, { headers, signal, redirect: "manual" });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ImportRefusedError(
          "github_error",
          `cannot reach GitHub at ${current}: ${describe(error)}`,
          {
            url: current,
          },
          { cause: error },
        );
      }
      if (response.status >= 300 && response.status < 400) {
        await discard(response);
        const location = response.headers.get("location");
        const next = location === null ? undefined : safeUrl(location, current);
        if (next === undefined || next.origin !== this.#origin) {
          throw new ImportRefusedError(
            "github_error",
            `GitHub redirected ${current} away from ${this.#origin}`,
            {
              url: current,
              status: response.status,
            },
          );
        }
        current = next.href;
        continue;
      }
      if (!response.ok) throw await statusError(response, current);
      return response;
    }
    throw new ImportRefusedError(
      "github_error",
      `GitHub redirected ${url} more than ${MAX_REDIRECTS} times`,
      {
        url,
      },
    );
  }

  #checkType(response: Response, url: string, expected: RegExp, what: string): void {
    const type = response.headers.get("content-type") ?? "";
    if (expected.test(type)) return;
    void discard(response);
    throw new ImportRefusedError(
      "github_bad_response",
      `GitHub answered ${url} with content type "${type}", not ${what}`,
      { url, status: response.status },
    );
  }
}

/**
 * Reads a body, refusing it once it passes `maxBytes` (a declared Content-Length over the
 * cap is refused before reading). A connection that ends before the declared length is
 * `github_truncated`.
 */
async function readCapped(response: Response, url: string, maxBytes: number): Promise<Buffer> {
  const tooLarge = (seen: number): ImportRefusedError =>
    new ImportRefusedError(
      "github_response_too_large",
      `GitHub's answer to ${url} is larger than ${maxBytes} bytes`,
      {
        url,
        limit: maxBytes,
        actual: seen,
      },
    );
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discard(response);
    throw tooLarge(declared);
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        throw new ImportRefusedError(
          "github_truncated",
          `GitHub's answer to ${url} ended early: ${describe(error)}`,
          {
            url,
            actual: total,
          },
          { cause: error },
        );
      }
      if (step.done) break;
      total += step.value.length;
      if (total > maxBytes) throw tooLarge(total);
      chunks.push(Buffer.from(step.value));
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (Number.isFinite(declared) && total !== declared) {
    throw new ImportRefusedError("github_truncated", `GitHub sent ${total} of ${declared} bytes for ${url}`, {
      url,
      actual: total,
    });
  }
  return Buffer.concat(chunks, total);
}

async function statusError(response: Response, url: string): Promise<ImportRefusedError> {
  await discard(response);
  const status = response.status;
  const remaining = response.headers.get("x-ratelimit-remaining");
  if (status === 429 || (status === 403 && (remaining === "0" || response.headers.has("retry-after")))) {
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    const resetAt = Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000).toISOString() : undefined;
    const when = resetAt === undefined ? "" : ` until ${resetAt}`;
    return new ImportRefusedError(
      "github_rate_limited",
      `GitHub's rate limit is used up${when}; try later or give a token`,
      { url, status, ...(resetAt === undefined ? {} : { resetAt }) },
    );
  }
  if (status === 404) {
    return new ImportRefusedError(
      "github_not_found",
      `GitHub has no such repository, ref or folder (${url})`,
      {
        url,
        status,
      },
    );
  }
  if (status === 401 || status === 403) {
    return new ImportRefusedError("github_forbidden", `GitHub refused access to ${url} (HTTP ${status})`, {
      url,
      status,
    });
  }
  return new ImportRefusedError("github_error", `GitHub answered ${url} with HTTP ${status}`, {
    url,
    status,
  });
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function safeUrl(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
