import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { parseDocument } from "yaml";
import { sha256Hex } from "../../core/hashing.js";
import { MAX_YAML_ALIAS_COUNT } from "../../core/limits.js";
import { isPlainObject, sanitizeJson } from "../../core/safe-json.js";
import { type CapabilityProblem, problem } from "../problems.js";
import { isInside } from "./manifest-paths.js";

/** The most bytes a manifest file may have (inline schemas included). */
export const MAX_MANIFEST_BYTES = 256 * 1024;

/** A manifest file read and parsed, or why not. */
export type ManifestRead =
  | {
      readonly ok: true;
      /** The canonical path. */
      readonly path: string;
      /** SHA-256 hex of the file's bytes. */
      readonly digest: string;
      /** The YAML as plain data, prototype-polluting keys dropped. */
      readonly value: Record<string, unknown>;
    }
  | { readonly ok: false; readonly path: string; readonly problems: readonly CapabilityProblem[] };

/**
 * Reads one manifest in a manifests folder (`<config>/adapters`, `.skillgate/capabilities`,
 * …) with skillgate's limits: a symbolic link that leads out of that folder is
 * `path_not_allowed`, a file over {@link MAX_MANIFEST_BYTES} is `file_too_large`, YAML
 * anchors expanding past the alias limit are `yaml_alias_limit`, duplicate keys and other
 * YAML errors `invalid_manifest`. Never throws for the file's content.
 */
export function readManifestFile(file: string): ManifestRead {
  const refuse = (item: CapabilityProblem): ManifestRead => ({ ok: false, path: file, problems: [item] });
  let canonical: string;
  let folder: string;
  try {
    canonical = realpathSync(file);
    folder = realpathSync(dirname(file));
  } catch (error) {
    return refuse(
      problem(
        "unreadable_file",
        "error",
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        {
          path: file,
        },
      ),
    );
  }
  if (!isInside(canonical, folder))
    return refuse(
      problem("path_not_allowed", "error", `is a link to ${canonical}, outside ${folder}`, {
        path: file,
        reason: "path_not_allowed",
      }),
    );
  let bytes: Buffer;
  try {
    const size = lstatSync(canonical).size;
    if (size > MAX_MANIFEST_BYTES)
      return refuse(
        problem("file_too_large", "error", `is ${size} bytes; a manifest may have ${MAX_MANIFEST_BYTES}`, {
          path: file,
        }),
      );
    bytes = readFileSync(canonical);
  } catch (error) {
    return refuse(
      problem(
        "unreadable_file",
        "error",
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        {
          path: file,
        },
      ),
    );
  }
  // The size is checked again on the bytes read: the file may have grown since the stat.
  if (bytes.length > MAX_MANIFEST_BYTES)
    return refuse(problem("file_too_large", "error", `is over ${MAX_MANIFEST_BYTES} bytes`, { path: file }));
  const parsed = parseManifestText(bytes.toString("utf8"), file);
  if (!parsed.ok) return { ok: false, path: file, problems: parsed.problems };
  return { ok: true, path: canonical, digest: sha256Hex(bytes), value: parsed.value };
}

/** Parses manifest text; `file` names it in problems. */
export function parseManifestText(
  text: string,
  file: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; problems: CapabilityProblem[] } {
  const document = parseDocument(text, { schema: "core", uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0)
    return {
      ok: false,
      problems: document.errors.map((error) =>
        problem(
          "invalid_manifest",
          "error",
          `is not valid YAML: ${(error.message.split("\n")[0] ?? "").replace(/:$/, "")}`,
          {
            path: file,
          },
        ),
      ),
    };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problems: [
        /alias/i.test(message)
          ? problem(
              "yaml_alias_limit",
              "error",
              `expands YAML aliases past the limit (${MAX_YAML_ALIAS_COUNT})`,
              {
                path: file,
              },
            )
          : problem("invalid_manifest", "error", `cannot be read as YAML: ${message}`, { path: file }),
      ],
    };
  }
  if (!isPlainObject(value))
    return {
      ok: false,
      problems: [problem("invalid_manifest", "error", "must be a YAML mapping", { path: file })],
    };
  return { ok: true, value: sanitizeJson(value) as Record<string, unknown> };
}
