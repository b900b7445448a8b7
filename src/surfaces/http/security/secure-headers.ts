import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * Security headers on every answer, and the content-security policy of the web UI: scripts
 * only from this server (the UI is bundled, no CDN), styles from this server plus inline
 * style attributes (the editor sets them), no framing, no plugins, forms and fetches to this
 * server only, and no referrer (a URL never leaves for another site). HSTS is left to the TLS
 * reverse proxy: on plain HTTP it would mean nothing (docs/server.md, "Behind a TLS reverse proxy").
 */
export function securityHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", "data:"],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    referrerPolicy: "no-referrer",
    strictTransportSecurity: false,
    crossOriginResourcePolicy: "same-origin",
    crossOriginOpenerPolicy: "same-origin",
    xFrameOptions: "DENY",
  });
}
