/**
 * Header handling for forwarded plain HTTP: hop-by-hop headers belong to one connection
 * (RFC 9110 section 7.6.1) and are never passed on, nor are the client's proxy credentials.
 */

const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Header name to value(s), the shape `http.request` and `writeHead` take. */
export type HeaderMap = Record<string, string | string[]>;

/** The values of every header named `name` (case-insensitive) in Node's `rawHeaders` list. */
export function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() === name) values.push(rawHeaders[index + 1] as string);
  }
  return values;
}

/**
 * The end-to-end headers of `rawHeaders`: hop-by-hop ones, those the Connection header
 * names, `host` and anything in `drop` are left out; repeated headers keep every value.
 */
export function endToEndHeaders(rawHeaders: readonly string[], drop: readonly string[] = []): HeaderMap {
  const named = new Set(
    headerValues(rawHeaders, "connection").flatMap((value) =>
      value.split(",").map((token) => token.trim().toLowerCase()),
    ),
  );
  const result: HeaderMap = Object.create(null) as HeaderMap;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    if (HOP_BY_HOP.has(name) || named.has(name) || name === "host" || drop.includes(name)) continue;
    const existing = result[name];
    if (existing === undefined) result[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[name] = [existing, value];
  }
  return result;
}
