import { ImportRefusedError } from "./import-errors.js";
import type { ImportLimits } from "./limits.js";

/** One file held in memory until the whole import has been checked. */
export interface ImportedFile {
  readonly bytes: Buffer;
  /** Written with mode 0755 instead of 0644 (from a zip entry's Unix mode). */
  readonly executable: boolean;
}

/**
 * The files of an import, held in memory and checked against the limits as they arrive:
 * exact and normalised duplicates, a path used both as a file and as a folder, the file
 * count, the size of each file and the size of all of them. Memory stays bounded by
 * `maxSkillBytes` because nothing larger is ever accepted.
 */
export class SkillFileSet {
  readonly #limits: ImportLimits;
  readonly #files = new Map<string, ImportedFile>();
  readonly #reserved = new Set<string>();
  readonly #folders = new Set<string>();
  #declaredBytes = 0;
  #actualBytes = 0;

  constructor(limits: ImportLimits) {
    this.#limits = limits;
  }

  /** Bytes of all files added so far, as actually read. */
  get totalBytes(): number {
    return this.#actualBytes;
  }

  /** The files added, by normalised path. */
  get files(): ReadonlyMap<string, ImportedFile> {
    return this.#files;
  }

  /**
   * Records a folder (a zip folder entry). A folder may be named more than once; a path
   * that is already a file may not become a folder.
   *
   * @throws ImportRefusedError `duplicate_entry`
   */
  addFolder(path: string): void {
    if (path === "") return;
    this.#claimParents(`${path}/`, path);
    if (this.#reserved.has(path)) this.#refuseDuplicate(path, "is both a file and a folder");
    this.#folders.add(path);
  }

  /**
   * Claims a file path before its bytes are read, checking the count and, when the source
   * declares one, the size it claims (a claim over a limit is refused at once; a claim
   * under it is checked again on the real bytes).
   *
   * @throws ImportRefusedError `duplicate_entry`, `too_many_files`, `file_too_large`, `skill_too_large`
   */
  reserveFile(path: string, declaredSize?: number): void {
    if (this.#reserved.has(path)) this.#refuseDuplicate(path, "appears more than once");
    if (this.#folders.has(path)) this.#refuseDuplicate(path, "is both a file and a folder");
    this.#claimParents(path, path);
    if (this.#reserved.size + 1 > this.#limits.maxFiles) {
      throw new ImportRefusedError(
        "too_many_files",
        `the skill has more than ${this.#limits.maxFiles} files`,
        { limit: this.#limits.maxFiles, actual: this.#reserved.size + 1 },
      );
    }
    if (declaredSize !== undefined) {
      this.checkFileSize(path, declaredSize);
      this.#declaredBytes += declaredSize;
      this.#checkTotal(this.#declaredBytes, path);
    }
    this.#reserved.add(path);
  }

  /**
   * Checks a running byte count of one file against the per-file limit and, together with
   * the files already added, against the skill limit. Importers call it while streaming.
   *
   * @throws ImportRefusedError `file_too_large`, `skill_too_large`
   */
  checkFileSize(path: string, bytesSoFar: number): void {
    if (bytesSoFar > this.#limits.maxFileBytes) {
      throw new ImportRefusedError(
        "file_too_large",
        `${path} is larger than ${this.#limits.maxFileBytes} bytes`,
        { path, limit: this.#limits.maxFileBytes, actual: bytesSoFar },
      );
    }
    this.#checkTotal(this.#actualBytes + bytesSoFar, path);
  }

  /**
   * Adds the bytes of a reserved file, re-checking its real size.
   *
   * @throws ImportRefusedError `file_too_large`, `skill_too_large`
   */
  addFile(path: string, bytes: Buffer, executable = false): void {
    if (!this.#reserved.has(path)) this.reserveFile(path);
    if (this.#files.has(path)) this.#refuseDuplicate(path, "appears more than once");
    this.checkFileSize(path, bytes.length);
    this.#files.set(path, { bytes, executable });
    this.#actualBytes += bytes.length;
  }

  #checkTotal(total: number, path: string): void {
    if (total > this.#limits.maxSkillBytes) {
      throw new ImportRefusedError(
        "skill_too_large",
        `the skill is larger than ${this.#limits.maxSkillBytes} bytes (at ${path})`,
        { path, limit: this.#limits.maxSkillBytes, actual: total },
      );
    }
  }

  /** Every parent folder of `path` must not already be a file; records them as folders. */
  #claimParents(path: string, shown: string): void {
    const segments = path.split("/");
    for (let index = 1; index < segments.length; index += 1) {
      const parent = segments.slice(0, index).join("/");
      if (this.#reserved.has(parent)) this.#refuseDuplicate(shown, `lies inside ${parent}, which is a file`);
      this.#folders.add(parent);
    }
  }

  #refuseDuplicate(path: string, why: string): never {
    throw new ImportRefusedError("duplicate_entry", `${path} ${why}`, { path });
  }
}
