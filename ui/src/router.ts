import { useEffect, useState } from "react";

/**
 * Routing by the address's hash (`#/skills/name`): the server serves one page at `/` and
 * needs no fallback for deep links; the back button and bookmarks work as usual.
 */

/** A page the app shows, parsed from the hash. */
export type Route =
  | { readonly page: "skills" }
  | { readonly page: "skill"; readonly name: string }
  | { readonly page: "editor"; readonly name: string; readonly path: string }
  | { readonly page: "review" }
  | { readonly page: "plan"; readonly id: string }
  | { readonly page: "asks" }
  | { readonly page: "chats" }
  | { readonly page: "transcript"; readonly id: string }
  | { readonly page: "audit"; readonly skill?: string; readonly chat?: string }
  | { readonly page: "import" }
  | { readonly page: "nodes" }
  | { readonly page: "queue" }
  | { readonly page: "generations" }
  | { readonly page: "not-found"; readonly hash: string };

/** Decodes a segment; a malformed escape is kept as written. */
function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The route of a hash such as `#/skills/pdf-tools/files/scripts/a.py`. */
export function parseRoute(hash: string): Route {
  const [pathPart = "", queryPart = ""] = hash.replace(/^#/, "").split("?", 2);
  const parts = pathPart.split("/").filter((part) => part !== "");
  const params = new URLSearchParams(queryPart);
  const [first, second, third, ...rest] = parts;
  if (first === undefined || (first === "skills" && second === undefined)) return { page: "skills" };
  if (first === "skills" && second !== undefined) {
    if (third === "files" && rest.length > 0) {
      return { page: "editor", name: decode(second), path: rest.map(decode).join("/") };
    }
    if (third === undefined) return { page: "skill", name: decode(second) };
  }
  if (first === "review" && second === undefined) return { page: "review" };
  if (first === "plans" && second !== undefined && third === undefined)
    return { page: "plan", id: decode(second) };
  if (first === "asks" && second === undefined) return { page: "asks" };
  if (first === "chats" && second === undefined) return { page: "chats" };
  if (first === "chats" && second !== undefined && third === undefined) {
    return { page: "transcript", id: decode(second) };
  }
  if (first === "audit" && second === undefined) {
    const skill = params.get("skill") ?? undefined;
    const chat = params.get("chat") ?? undefined;
    return {
      page: "audit",
      ...(skill !== undefined ? { skill } : {}),
      ...(chat !== undefined ? { chat } : {}),
    };
  }
  if (first === "import" && second === undefined) return { page: "import" };
  if (first === "nodes" && second === undefined) return { page: "nodes" };
  if (first === "queue" && second === undefined) return { page: "queue" };
  if (first === "generations" && second === undefined) return { page: "generations" };
  return { page: "not-found", hash };
}

/** The hash of a skill's page. */
export function skillHref(name: string): string {
  return `#/skills/${encodeURIComponent(name)}`;
}

/** The hash of a file's editor. */
export function fileHref(name: string, path: string): string {
  return `${skillHref(name)}/files/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The route now, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const follow = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  return route;
}
