import { isPlainObject } from "../../core/safe-json.js";
import { checkEntryName, printable } from "./entry-path.js";
import { GithubClient } from "./github-client.js";
import { type GithubFolderAddress, parseGithubTreeUrl } from "./github-url.js";
import { ImportRefusedError } from "./import-errors.js";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits, MAX_IMPORT_DEPTH } from "./limits.js";
import { SkillFileSet } from "./skill-file-set.js";
import { rootSkillFiles } from "./skill-root.js";
import type { ImportResult } from "./unpack-zip.js";
import { writeSkillFolder } from "./write-skill-folder.js";

/** How {@link importGithubFolder} reaches GitHub. Every field has a default. */
export interface GithubImportOptions {
  /** The REST API root; `https://api.github.com` by default, a fake server in tests. */
  readonly apiBaseUrl?: string;
  /** A token for private repositories and a higher rate limit, sent as `Bearer`. */
  readonly token?: string;
  readonly limits?: ImportLimits;
  /** The fetch to use; Node's global fetch by default. */
  readonly fetch?: typeof globalThis.fetch;
  /** Time for one request, headers and body together; 15 s by default. */
  readonly requestTimeoutMs?: number;
  /** Time for the whole import; 120 s by default. */
  readonly totalTimeoutMs?: number;
  /** The largest folder listing accepted, in bytes; 1 MiB by default. */
  readonly maxListingBytes?: number;
  /** Files downloaded at once; 4 by default. */
  readonly concurrency?: number;
  readonly userAgent?: string;
  /** Cancels the import; the target is left as it was. */
  readonly signal?: AbortSignal;
  /** Told when listing ends and after each file arrives, for progress on a terminal. */
  readonly onProgress?: (progress: ImportProgress) => void;
}

/** How far an import has got: `listed` once the tree is checked, then one `downloaded` per file. */
export interface ImportProgress {
  readonly phase: "listed" | "downloaded";
  readonly done: number;
  readonly total: number;
  readonly bytes: number;
}

/** What a GitHub import wrote, and from where. */
export interface GithubImportResult extends ImportResult {
  readonly address: GithubFolderAddress;
}

/** A file found in the listings, before it is downloaded. */
interface ListedFile {
  /** Path relative to the imported folder. */
  readonly path: string;
  /** Path inside the repository, as the API named it. */
  readonly repositoryPath: string;
  readonly size: number;
}

/**
 * Imports the skill in a GitHub folder into `targetFolder` (absent or empty), or refuses
 * and leaves the target as it was.
 *
 * It uses the contents API: `GET /repos/{owner}/{repo}/contents/{path}?ref={ref}` lists each
 * folder (walked breadth first), then the same endpoint with the raw media type downloads
 * each file. The whole tree is listed and checked against the limits (file count, each
 * declared size, the total, names, links and submodules) before any file is downloaded;
 * then every download is capped at the size the listing declared. The folder itself must
 * hold `SKILL.md`. Nothing is written until every file has arrived intact.
 *
 * @throws ImportRefusedError with one of the codes in docs/import.md
 */
export async function importGithubFolder(
  url: string,
  targetFolder: string,
  options: GithubImportOptions = {},
): Promise<GithubImportResult> {
  const address = parseGithubTreeUrl(url);
  const limits = options.limits ?? DEFAULT_IMPORT_LIMITS;
  const deadline = AbortSignal.timeout(options.totalTimeoutMs ?? 120_000);
  const client = new GithubClient({
    apiBaseUrl: options.apiBaseUrl ?? "https://api.github.com",
    token: options.token,
    userAgent: options.userAgent ?? "skillgate",
    fetch: options.fetch ?? globalThis.fetch,
    requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
    signal: options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]),
  });
  const fileSet = new SkillFileSet(limits);
  const listed = await listFolder(client, address, fileSet, limits, options.maxListingBytes ?? 1024 * 1024);
  let done = 0;
  let received = 0;
  options.onProgress?.({ phase: "listed", done, total: listed.length, bytes: received });
  await downloadAll(listed, options.concurrency ?? 4, async (file) => {
    const bytes = await client.getRaw(contentsPath(address, file.repositoryPath), file.size);
    fileSet.addFile(file.path, bytes);
    done += 1;
    received += bytes.length;
    options.onProgress?.({ phase: "downloaded", done, total: listed.length, bytes: received });
  });
  const rooted = rootSkillFiles(fileSet.files, { allowTopFolder: false });
  await writeSkillFolder(rooted.files, targetFolder);
  return {
    files: [...rooted.files.keys()].sort(),
    totalBytes: fileSet.totalBytes,
    strippedFolder: undefined,
    address,
  };
}

/** Lists the folder and every folder below it, reserving each file in `fileSet` as it is found. */
async function listFolder(
  client: GithubClient,
  address: GithubFolderAddress,
  fileSet: SkillFileSet,
  limits: ImportLimits,
  maxListingBytes: number,
): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  const queue: string[] = [""];
  let folders = 0;
  for (let relative = queue.shift(); relative !== undefined; relative = queue.shift()) {
    folders += 1;
    // Each folder costs a request: bound them like files, so an empty-folder maze is refused.
    if (folders > limits.maxFiles) {
      throw new ImportRefusedError(
        "too_many_files",
        `the folder holds more than ${limits.maxFiles} folders`,
        {
          limit: limits.maxFiles,
          actual: folders,
        },
      );
    }
    const repositoryFolder = join(address.path, relative);
    const listing = await client.getJson(contentsPath(address, repositoryFolder), maxListingBytes);
    if (!Array.isArray(listing)) {
      if (relative === "" && isPlainObject(listing) && typeof listing.type === "string") {
        throw new ImportRefusedError("not_a_folder", `${address.url} names a ${listing.type}, not a folder`, {
          url: address.url,
        });
      }
      throw badListing(repositoryFolder, "a folder listing is not an array");
    }
    for (const item of listing) {
      const entry = readListingItem(item, repositoryFolder);
      const path = join(relative, entry.name);
      const expected = join(repositoryFolder, entry.name);
      if (entry.path !== expected) {
        throw new ImportRefusedError(
          "path_not_allowed",
          `GitHub listed "${printable(entry.path)}" inside ${repositoryFolder || "the root"}; expected ${expected}`,
          { path: printable(entry.path) },
        );
      }
      if (path.split("/").length > MAX_IMPORT_DEPTH) {
        throw new ImportRefusedError(
          "path_not_allowed",
          `${path} is nested deeper than ${MAX_IMPORT_DEPTH} folders`,
          {
            path,
          },
        );
      }
      if (entry.type === "dir") {
        fileSet.addFolder(path);
        queue.push(path);
      } else if (entry.type === "file" && !entry.isSubmodule) {
        fileSet.reserveFile(path, entry.size);
        files.push({ path, repositoryPath: expected, size: entry.size });
      } else if (entry.type === "symlink") {
        throw new ImportRefusedError(
          "symlink_not_allowed",
          `${path} is a symbolic link; skills may not hold links`,
          {
            path,
          },
        );
      } else {
        throw new ImportRefusedError(
          "unsupported_entry",
          `${path} is a ${entry.isSubmodule ? "submodule" : entry.type}`,
          {
            path,
          },
        );
      }
    }
  }
  return files;
}

interface ListingItem {
  readonly name: string;
  readonly path: string;
  readonly type: string;
  readonly size: number;
  readonly isSubmodule: boolean;
}

function readListingItem(item: unknown, folder: string): ListingItem {
  if (!isPlainObject(item)) throw badListing(folder, "an entry is not an object");
  const { name, path, type, size } = item;
  if (typeof name !== "string" || typeof path !== "string" || typeof type !== "string") {
    throw badListing(folder, "an entry lacks name, path or type");
  }
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    throw badListing(folder, `${printable(name)} has no valid size`);
  }
  checkEntryName(name, join(folder, name));
  // The contents API lists a submodule as a "file" whose git_url points at a tree.
  const isSubmodule =
    type === "submodule" ||
    (type === "file" && typeof item.git_url === "string" && item.git_url.includes("/git/trees/"));
  return { name, path, type, size, isSubmodule };
}

function badListing(folder: string, why: string): ImportRefusedError {
  return new ImportRefusedError(
    "github_bad_response",
    `GitHub's listing of ${folder || "the root"} is malformed: ${why}`,
    {
      path: folder,
    },
  );
}

/** `/repos/{owner}/{repo}/contents/{path}?ref={ref}`, every part percent-encoded. */
function contentsPath(address: GithubFolderAddress, repositoryPath: string): string {
  const encodedPath =
    repositoryPath === "" ? "" : `/${repositoryPath.split("/").map(encodeURIComponent).join("/")}`;
  return `/repos/${encodeURIComponent(address.owner)}/${encodeURIComponent(address.repo)}/contents${encodedPath}?ref=${encodeURIComponent(address.ref)}`;
}

function join(folder: string, name: string): string {
  return folder === "" ? name : name === "" ? folder : `${folder}/${name}`;
}

/** Runs `work` over `items`, `concurrency` at a time; the first failure stops new work and is thrown. */
async function downloadAll<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
