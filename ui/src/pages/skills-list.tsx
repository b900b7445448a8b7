import { type ReactNode, useMemo, useState } from "react";
import { listSkills } from "../api/skills.js";
import type { SkillSummary } from "../api/types.js";
import { ErrorNotice, Loading } from "../components/error-notice.js";
import { Hash } from "../components/hash.js";
import { useLive } from "../live.js";
import { skillHref } from "../router.js";
import { useApi } from "../use-api.js";

/** The filters of the list; "" is "any". */
interface Filters {
  readonly search: string;
  readonly source: string;
  readonly enabled: "" | "yes" | "no";
  readonly runner: string;
  readonly tier: string;
}

const NO_FILTERS: Filters = { search: "", source: "", enabled: "", runner: "", tier: "" };

/** True when `skill` passes every filter. */
export function matches(skill: SkillSummary, filters: Filters): boolean {
  const search = filters.search.trim().toLowerCase();
  if (search !== "" && !`${skill.name} ${skill.description ?? ""}`.toLowerCase().includes(search))
    return false;
  if (filters.source !== "" && skill.source !== filters.source) return false;
  if (filters.enabled === "yes" && !skill.enabled) return false;
  if (filters.enabled === "no" && skill.enabled) return false;
  if (filters.runner !== "" && (skill.runner ?? "") !== filters.runner) return false;
  if (filters.tier !== "" && (skill.tier ?? "") !== filters.tier) return false;
  return true;
}

/** The sorted distinct values of one field, for a filter's choices. */
function choices(
  skills: readonly SkillSummary[],
  read: (skill: SkillSummary) => string | undefined,
): string[] {
  return [
    ...new Set(skills.map(read).filter((value): value is string => value !== undefined && value !== "")),
  ].sort();
}

/** A labelled select of a filter. */
function FilterSelect(props: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly options: readonly string[];
  readonly onChange: (value: string) => void;
}): ReactNode {
  return (
    <label className="field" htmlFor={props.id}>
      <span>{props.label}</span>
      <select id={props.id} value={props.value} onChange={(event) => props.onChange(event.target.value)}>
        <option value="">any</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Every skill, built-in and stored, with search and filters; refetched on live updates. */
export function SkillsListPage(): ReactNode {
  const live = useLive();
  const skills = useApi(() => listSkills(), [live.version]);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const all = skills.value ?? [];
  const shown = useMemo(() => all.filter((skill) => matches(skill, filters)), [all, filters]);
  const set = (change: Partial<Filters>): void => setFilters((previous) => ({ ...previous, ...change }));

  return (
    <section aria-labelledby="skills-heading">
      <h1 id="skills-heading">Skills</h1>
      <form className="filters" aria-label="Search and filter" onSubmit={(event) => event.preventDefault()}>
        <label className="field grow" htmlFor="skill-search">
          <span>Search</span>
          <input
            id="skill-search"
            type="search"
            value={filters.search}
            placeholder="name or description"
            onChange={(event) => set({ search: event.target.value })}
          />
        </label>
        <FilterSelect
          id="filter-source"
          label="Source"
          value={filters.source}
          options={choices(all, (skill) => skill.source)}
          onChange={(source) => set({ source })}
        />
        <FilterSelect
          id="filter-enabled"
          label="Enabled"
          value={filters.enabled}
          options={["yes", "no"]}
          onChange={(enabled) => set({ enabled: enabled as Filters["enabled"] })}
        />
        <FilterSelect
          id="filter-runner"
          label="Runner"
          value={filters.runner}
          options={choices(all, (skill) => skill.runner)}
          onChange={(runner) => set({ runner })}
        />
        <FilterSelect
          id="filter-tier"
          label="Tier"
          value={filters.tier}
          options={choices(all, (skill) => skill.tier)}
          onChange={(tier) => set({ tier })}
        />
      </form>
      {skills.error !== undefined ? <ErrorNotice error={skills.error} /> : null}
      {skills.value === undefined && skills.loading ? <Loading /> : null}
      {skills.value !== undefined ? (
        <>
          <p className="muted" aria-live="polite">
            {shown.length === all.length ? `${all.length} skills` : `${shown.length} of ${all.length} skills`}
          </p>
          <div className="table-wrap">
            <table className="skills-table" data-testid="skills-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Source</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Runner</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Lint</th>
                  <th scope="col">Hash</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((skill) => (
                  <SkillRow key={skill.name} skill={skill} />
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}

/** One row: the name links to the skill's page. */
function SkillRow(props: { readonly skill: SkillSummary }): ReactNode {
  const { skill } = props;
  const warnings = skill.reviewWarnings ?? 0;
  return (
    <tr>
      <th scope="row">
        <a href={skillHref(skill.name)}>{skill.name}</a>
        {skill.description !== undefined ? <div className="muted small">{skill.description}</div> : null}
      </th>
      <td>
        <span className={`pill source-${skill.source}`}>{skill.source}</span>
        {skill.author !== undefined && skill.author !== skill.source ? (
          <div className="muted small">by {skill.author}</div>
        ) : null}
      </td>
      <td>
        {skill.enabled ? (
          <span className="pill on">enabled</span>
        ) : (
          <span className="pill off">disabled</span>
        )}
      </td>
      <td>{skill.runner ?? <span className="muted">none</span>}</td>
      <td>{skill.tier ?? <span className="muted">none</span>}</td>
      <td>
        {warnings > 0 ? (
          <span className="pill warn" title="review lint warnings">
            {warnings} {warnings === 1 ? "warning" : "warnings"}
          </span>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td>
        <Hash value={skill.hash} />
      </td>
    </tr>
  );
}
