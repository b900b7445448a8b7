import { type ReactNode, useState } from "react";
import { importGithub, importZip } from "../api/skills.js";
import type { ImportResult } from "../api/types.js";
import { ErrorNotice } from "../components/error-notice.js";
import { skillHref } from "../router.js";

/** The names an import answered with. */
function importedNames(result: ImportResult): string[] {
  if (result.names !== undefined) return [...result.names];
  if (result.skills !== undefined) return result.skills.map((skill) => skill.name);
  return result.name !== undefined ? [result.name] : [];
}

/**
 * Import a skill: drop (or choose) a zip, or paste a GitHub folder address. The server checks
 * everything before anything is stored; a refusal is shown in words with its code.
 */
export function ImportPage(): ReactNode {
  const [state, setState] = useState<
    | { phase: "idle" }
    | { phase: "running"; what: string }
    | { phase: "done"; names: string[] }
    | { phase: "failed"; error: unknown }
  >({ phase: "idle" });
  const [url, setUrl] = useState("");
  const [dragging, setDragging] = useState(false);
  const run = async (what: string, start: () => Promise<ImportResult>): Promise<void> => {
    setState({ phase: "running", what });
    try {
      setState({ phase: "done", names: importedNames(await start()) });
    } catch (error) {
      setState({ phase: "failed", error });
    }
  };
  const takeFile = (file: File | undefined): void => {
    if (file !== undefined)
      void run(`Importing ${file.name} (${file.size} bytes)…`, () => importZip(file, file.name));
  };
  const busy = state.phase === "running";
  return (
    <section aria-labelledby="import-heading">
      <h1 id="import-heading">Import a skill</h1>
      <section
        className={`drop-zone${dragging ? " dragging" : ""}`}
        aria-label="Drop a zip here"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          takeFile(event.dataTransfer.files[0]);
        }}
      >
        <p>Drop a skill's zip here, or</p>
        <label className="field" htmlFor="import-zip">
          <span>Choose a zip</span>
          <input
            id="import-zip"
            type="file"
            accept=".zip,application/zip"
            disabled={busy}
            onChange={(event) => takeFile(event.target.files?.[0])}
          />
        </label>
      </section>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (url.trim() !== "") void run(`Importing ${url.trim()}…`, () => importGithub(url.trim()));
        }}
      >
        <label className="field grow" htmlFor="import-url">
          <span>GitHub folder address</span>
          <input
            id="import-url"
            type="url"
            value={url}
            placeholder="https://github.com/owner/repo/tree/main/skills/name"
            onChange={(event) => setUrl(event.target.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Import
        </button>
      </form>
      <div aria-live="polite">
        {state.phase === "running" ? (
          <p className="notice" role="status">
            <progress aria-label="Importing" /> {state.what}
          </p>
        ) : null}
        {state.phase === "done" ? (
          <p className="notice notice-ok" role="status">
            Imported{" "}
            {state.names.map((name) => (
              <a key={name} className="chip" href={skillHref(name)}>
                {name}
              </a>
            ))}
            . New skills start disabled: open one to read it and enable it by hash.
          </p>
        ) : null}
      </div>
      {state.phase === "failed" ? <ErrorNotice error={state.error} /> : null}
    </section>
  );
}
