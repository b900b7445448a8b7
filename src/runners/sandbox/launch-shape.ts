import { bwrapCommandLine, SANDBOX_FDS } from "./bwrap-arguments.js";
import type { CgroupSupport } from "./cgroup-detect.js";
import type { BwrapFeatures, SandboxTools } from "./host-tools.js";
import { launchCommand } from "./launcher.js";
import { hostRootEntries } from "./layout.js";
import type { SandboxResources } from "./limits.js";
import { type LaunchShape, PORTAL_UNREACHABLE } from "./prepared-launch.js";
import type { HostIdentity } from "./reachability.js";
import { portalFolder } from "./request-checks.js";
import { sandboxStaticFiles } from "./static-files.js";

/** What a launch's shape is made of: the host's programs, the run's containment and the portal. */
export interface ShapeParts {
  readonly bwrap: string;
  readonly features: BwrapFeatures;
  readonly tools: SandboxTools;
  /** The shell under `/usr` that runs the launcher inside the sandbox (and the portal's binds). */
  readonly shell: string;
  /** Drop host root to the sandbox user first (skillgate runs as root). */
  readonly dropRoot: boolean;
  /**
   * Root only: bind the snapshot (and socket) through the portal; the identity the sandbox
   * user has on the host, to check that each launch's portal folder is reachable.
   */
  readonly portal?: { readonly identity: HostIdentity };
  /** The chain dies with this process, even before bubblewrap reads its arguments (setpriv `--pdeathsig`). */
  readonly deathSignal: boolean;
  readonly resources: SandboxResources;
  readonly cgroups: CgroupSupport;
  /** The spawn's environment: empty when bubblewrap sets the script's after `--clearenv`. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The launch every run with these parts shares: the chain's argv (setpriv, bubblewrap's
 * fixed command line with the launcher, or with the run's command when it is made for a
 * known run; the portal's binds before them), the files bubblewrap reads (the
 * seccomp program and the generated `/etc` files), the spawn's environment, and the cgroups
 * with their limits. Two runs with the same key can be served by launches made for each
 * other; a launch itself never serves two.
 */
export function launchShape(parts: ShapeParts): LaunchShape {
  const staticFiles = sandboxStaticFiles();
  const files = {
    [SANDBOX_FDS.seccomp]: staticFiles.seccomp,
    [SANDBOX_FDS.passwd]: staticFiles.passwd,
    [SANDBOX_FDS.group]: staticFiles.group,
    [SANDBOX_FDS.hosts]: staticFiles.hosts,
  };
  const { tools } = parts;
  const { portal } = parts;
  const { unshare, mount } = tools;
  if (portal !== undefined && (unshare === undefined || mount === undefined))
    throw new Error("the portal needs unshare and mount");
  const argv = (runId: string, command?: readonly string[], folder?: string): string[] =>
    launchCommand({
      bwrap: parts.bwrap,
      bwrapArguments: bwrapCommandLine(
        {
          features: parts.features,
          rootEntries: hostRootEntries(),
          tmpBytes: parts.resources.tmpBytes,
          shell: parts.shell,
        },
        runId,
        command,
      ),
      ...(tools.setpriv !== undefined
        ? { setpriv: tools.setpriv, dropRoot: parts.dropRoot, deathSignal: parts.deathSignal }
        : {}),
      ...(portal !== undefined && unshare !== undefined && mount !== undefined
        ? { portal: { unshare, mount, shell: parts.shell, folder: folder ?? "" } }
        : {}),
    });
  const key = JSON.stringify([
    argv(""),
    parts.env,
    files,
    parts.cgroups.version,
    parts.cgroups.controllers,
    parts.resources,
  ]);
  return {
    key,
    argv,
    ...(portal !== undefined
      ? {
          portal: {
            makeFolder(): string {
              const folder = portalFolder(portal.identity);
              if (folder === undefined) throw new Error(PORTAL_UNREACHABLE);
              return folder;
            },
          },
        }
      : {}),
    env: parts.env,
    files,
    cgroups: parts.cgroups,
    resources: parts.resources,
  };
}
