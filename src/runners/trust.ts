import picomatch from "picomatch";

/**
 * Whether a skill is trusted to run on the host, from the owner's names and globs
 * (`runners.local.trusted`). The list is read on every call, so an edit of config.yaml is
 * seen by the next run; the matcher is rebuilt only when the list changes.
 */
export function trustedSkills(patterns: () => readonly string[]): (skill: string) => boolean {
  let last: { patterns: readonly string[]; matches: (skill: string) => boolean } | undefined;
  return (skill) => {
    const current = patterns();
    if (last?.patterns !== current) {
      const matchers = current.map((pattern) => picomatch(pattern, { dot: true }));
      last = { patterns: current, matches: (name) => matchers.some((matcher) => matcher(name)) };
    }
    return last.matches(skill);
  };
}
