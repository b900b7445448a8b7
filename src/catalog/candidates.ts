import type { LoadedSkill } from "../skill/load-skill.js";

/**
 * The skill folders the walks found, in precedence order, as parallel lists rather than
 * an object per folder: a catalog has thousands, a repeat compares them with the last
 * run's item by item, and decisions are made from them only when something changed.
 */
export class Candidates {
  /** The source name each folder is recorded under. */
  readonly sources: string[] = [];
  readonly directories: string[] = [];
  /** `<directory>/SKILL.md`. */
  readonly locations: string[] = [];
  /** What loading the folder's SKILL.md gave; undefined for a link that leads outside. */
  readonly loads: (LoadedSkill | undefined)[] = [];
  /** The real path of a linked folder that leads outside every allowed root. */
  readonly escapedTo: (string | undefined)[] = [];
  /** The managed store's switch for the folder; undefined for every other source. */
  readonly enabled: (boolean | undefined)[] = [];

  get length(): number {
    return this.directories.length;
  }

  push(
    source: string,
    directory: string,
    location: string,
    loaded: LoadedSkill | undefined,
    escapedTo: string | undefined,
    enabled: boolean | undefined,
  ): void {
    this.sources.push(source);
    this.directories.push(directory);
    this.locations.push(location);
    this.loads.push(loaded);
    this.escapedTo.push(escapedTo);
    this.enabled.push(enabled);
  }

  /**
   * True when `other` lists the same folders from the same sources with the very same
   * loads (a load is reused only while its file is unchanged) and switches. Locations
   * follow from folders and are not compared.
   */
  sameAs(other: Candidates): boolean {
    const length = this.length;
    if (other.length !== length) return false;
    for (let index = 0; index < length; index += 1) {
      if (
        this.loads[index] !== other.loads[index] ||
        this.directories[index] !== other.directories[index] ||
        this.sources[index] !== other.sources[index] ||
        this.escapedTo[index] !== other.escapedTo[index] ||
        this.enabled[index] !== other.enabled[index]
      ) {
        return false;
      }
    }
    return true;
  }
}
