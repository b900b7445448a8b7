import { type ReactNode, useEffect, useRef, useState } from "react";
import { ApiError } from "../api/client.js";
import { getSkill, setSkillEnabled } from "../api/skills.js";
import type { SkillDetail } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import { Markdown } from "../components/markdown.js";
import { useLive } from "../live.js";
import { fileHref } from "../router.js";
import { useApi } from "../use-api.js";

/** A governance value that is text, else undefined. */
function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Files the editor opens: text a person writes (scripts, Markdown, JSON, YAML). */
const EDITABLE = /\.(py|js|mjs|cjs|ts|mts|sh|bash|md|txt|json|yaml|yml|toml)$/i;

/** A skill's page: SKILL.md, files, governance, scripts, decision, hashes and enable/disable. */
export function SkillPage(props: { readonly name: string }): ReactNode {
  const skill = useApi(() => getSkill(props.name), [props.name]);
  if (skill.value === undefined) {
    return skill.error !== undefined ? <ErrorNotice error={skill.error} /> : <Loading />;
  }
  return (
    <>
      <ChangedBanner name={props.name} seenVersion={skill.value.hash} reload={skill.reload} />
      <SkillView skill={skill.value} reload={skill.reload} />
    </>
  );
}

/**
 * The page is not swapped under the reader when the skill changes elsewhere (what they read is
 * what they enable): a live update naming this skill shows a banner with a reload instead.
 */
function ChangedBanner(props: {
  readonly name: string;
  readonly seenVersion: string;
  readonly reload: () => void;
}): ReactNode {
  const live = useLive();
  const [changed, setChanged] = useState(false);
  // Events older than the read shown do not count: the version when this hash was read.
  const readAt = useRef(live.version);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when another hash is read.
  useEffect(() => {
    readAt.current = live.version;
    setChanged(false);
  }, [props.seenVersion]);
  useEffect(() => {
    const last = live.last;
    if (live.version <= readAt.current || last === undefined || last.name !== props.name) return;
    if (last.type === "skill-changed" || last.type === "skill-deleted" || last.type === "plan-applied") {
      setChanged(true);
    }
  }, [live.version, live.last, props.name]);
  if (!changed) return null;
  return (
    <div className="notice" role="status">
      This skill changed since you looked.{" "}
      <button type="button" onClick={props.reload}>
        Reload
      </button>
    </div>
  );
}

function SkillView(props: { readonly skill: SkillDetail; readonly reload: () => void }): ReactNode {
  const { skill } = props;
  const [view, setView] = useState<"rendered" | "raw">("rendered");
  const runner = skill.runner ?? textOf(skill.governance?.execution);
  const tier = skill.tier ?? textOf(skill.governance?.tier);
  return (
    <article aria-labelledby="skill-heading">
      <header className="page-head">
        <h1 id="skill-heading">{skill.name}</h1>
        <p className="muted">{skill.description}</p>
        <EnableControl skill={skill} reload={props.reload} />
      </header>

      <dl className="facts">
        <dt>Source</dt>
        <dd>{skill.source}</dd>
        {skill.author !== undefined ? (
          <>
            <dt>Author</dt>
            <dd>{skill.author}</dd>
          </>
        ) : null}
        {(skill.draft?.sourceChats ?? []).length > 0 ? (
          <>
            <dt>Source chats</dt>
            <dd>
              {(skill.draft?.sourceChats ?? []).map((chat) => (
                <a key={chat} className="chip" href={`#/chats/${encodeURIComponent(chat)}`}>
                  {chat}
                </a>
              ))}
            </dd>
          </>
        ) : null}
        {skill.draft?.rationale !== undefined ? (
          <>
            <dt>Rationale</dt>
            <dd>{skill.draft.rationale}</dd>
          </>
        ) : null}
        <dt>Hash now</dt>
        <dd>
          <Hash value={skill.hash} />
        </dd>
        {skill.recordedHash !== undefined && skill.recordedHash !== skill.hash ? (
          <>
            <dt>Hash recorded</dt>
            <dd>
              <Hash value={skill.recordedHash} />{" "}
              <span className="pill warn">edited by hand since it was recorded</span>
            </dd>
          </>
        ) : null}
        <dt>Grant</dt>
        <dd>{skill.grant !== undefined ? <code className="small">{skill.grant}</code> : "none"}</dd>
        <dt>Runner</dt>
        <dd>{runner ?? "none"}</dd>
        <dt>Tier</dt>
        <dd>{tier ?? "none"}</dd>
      </dl>

      <section aria-labelledby="decision-heading">
        <h2 id="decision-heading">Decision</h2>
        <p>
          <strong data-testid="decision">{skill.decision?.decision ?? "not found by discovery"}</strong>
          {skill.decision !== undefined ? <span className="muted"> in {skill.decision.source}</span> : null}
        </p>
        {(skill.decision?.reasons ?? []).length > 0 ? (
          <ul>
            {(skill.decision?.reasons ?? []).map((reason) => (
              <li key={`${reason.code}:${reason.message}`}>
                {reason.message} <code className="code">{reason.code}</code>
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <section aria-labelledby="skillmd-heading">
        <h2 id="skillmd-heading">SKILL.md</h2>
        <fieldset className="tabs">
          <legend className="visually-hidden">How SKILL.md is shown</legend>
          <button type="button" aria-pressed={view === "rendered"} onClick={() => setView("rendered")}>
            Rendered
          </button>
          <button type="button" aria-pressed={view === "raw"} onClick={() => setView("raw")}>
            Raw
          </button>
        </fieldset>
        {view === "rendered" ? (
          <Markdown text={skill.skillFile} />
        ) : (
          <pre className="raw">{skill.skillFile}</pre>
        )}
      </section>

      <section aria-labelledby="files-heading">
        <h2 id="files-heading">Files</h2>
        <ul className="files">
          {skill.files.map((file) => (
            <li key={file.path}>
              {skill.source !== "builtin" && EDITABLE.test(file.path) ? (
                <a href={fileHref(skill.name, file.path)}>{file.path}</a>
              ) : (
                <span>{file.path}</span>
              )}
              {file.size !== undefined ? <span className="muted small"> {file.size} bytes</span> : null}
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="governance-heading">
        <h2 id="governance-heading">Governance</h2>
        {skill.governance !== undefined && Object.keys(skill.governance).length > 0 ? (
          <dl className="facts">
            {Object.entries(skill.governance).map(([key, value]) => (
              <div key={key} className="fact">
                <dt>{key}</dt>
                <dd>
                  <code>{typeof value === "string" ? value : JSON.stringify(value)}</code>
                </dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className="muted">No governance keys.</p>
        )}
      </section>

      <section aria-labelledby="scripts-heading">
        <h2 id="scripts-heading">Scripts</h2>
        {(skill.scripts ?? []).length === 0 ? <p className="muted">No scripts.</p> : null}
        {(skill.scripts ?? []).map((script) => (
          <details key={script.path} className="script">
            <summary>
              {script.path} <span className="muted small">{script.runner ?? script.language ?? ""}</span>
            </summary>
            {script.schema !== undefined ? (
              <pre className="raw">{JSON.stringify(script.schema, null, 2)}</pre>
            ) : (
              <p className="muted">No parameters_schema.</p>
            )}
          </details>
        ))}
      </section>

      {(skill.diagnostics ?? []).length > 0 ? (
        <section aria-labelledby="diagnostics-heading">
          <h2 id="diagnostics-heading">Problems in SKILL.md</h2>
          <ul>
            {(skill.diagnostics ?? []).map((problem) => (
              <li key={`${problem.code}:${problem.field ?? ""}:${problem.message}`}>
                <span className={problem.severity === "error" ? "pill warn" : "pill"}>
                  {problem.severity}
                </span>{" "}
                {problem.message} <code className="code">{problem.code}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {(skill.lintWarnings ?? []).length > 0 ? (
        <section aria-labelledby="lint-heading">
          <h2 id="lint-heading">Review warnings</h2>
          <ul>
            {(skill.lintWarnings ?? []).map((warning) => (
              <li key={`${warning.file}:${warning.line}:${warning.rule}`}>
                <code>
                  {warning.file}:{warning.line}
                </code>{" "}
                {warning.message} <span className="muted small">({warning.rule})</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  );
}

/**
 * Enable or disable by the hash shown on this page: when the skill changed since, the server
 * answers 409 and the page says so, with a reload (nothing was changed).
 */
function EnableControl(props: { readonly skill: SkillDetail; readonly reload: () => void }): ReactNode {
  const { skill } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (skill.source === "builtin") {
    return <p className="muted">{skill.enabled ? "Enabled" : "Disabled"} (built-in)</p>;
  }
  const toggle = async (): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await setSkillEnabled(skill.name, !skill.enabled, skill.hash);
      props.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const changed = error instanceof ApiError && error.status === 409;
  return (
    <div className="enable">
      <span className={skill.enabled ? "pill on" : "pill off"}>{skill.enabled ? "enabled" : "disabled"}</span>{" "}
      <button type="button" disabled={busy} onClick={() => void toggle()}>
        {skill.enabled ? "Disable" : "Enable"} this version
      </button>
      {changed ? (
        <div className="notice notice-error" role="alert">
          <strong>Changed since you looked.</strong> The skill's hash is no longer <Hash value={skill.hash} />
          ; nothing was changed.{" "}
          <button
            type="button"
            onClick={() => {
              setError(undefined);
              props.reload();
            }}
          >
            Reload
          </button>
        </div>
      ) : error !== undefined ? (
        <ErrorNotice error={error} />
      ) : null}
    </div>
  );
}
