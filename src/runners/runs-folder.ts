import { join } from "node:path";

/** The folder every runner owns inside the data folder. */
export const RUNS_FOLDER = "runs";

/** Where runners keep their files: snapshots and per-run working folders. */
export interface RunsFolders {
  /** `<data>/runs`. */
  readonly root: string;
  /** `<data>/runs/snapshots`: one read-only folder per content hash. */
  readonly snapshots: string;
  /** `<data>/runs/work`: one fresh folder per run, removed afterwards. */
  readonly work: string;
}

/** The runners' folders under a data folder. Nothing is created here. */
export function runsFolders(dataFolder: string): RunsFolders {
  const root = join(dataFolder, RUNS_FOLDER);
  return { root, snapshots: join(root, "snapshots"), work: join(root, "work") };
}
