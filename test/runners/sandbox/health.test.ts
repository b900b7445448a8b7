import { describe, expect, it } from "vitest";
import { hostCgroupSupport } from "../../../src/runners/sandbox/cgroup-detect.js";
import { describeLimits, sandboxHealth } from "../../../src/runners/sandbox/health.js";
import { parseBwrapFeatures } from "../../../src/runners/sandbox/host-tools.js";
import { requireBubblewrap } from "./harness.js";

const FULL_HELP =
  "--unshare-all --die-with-parent --new-session --cap-drop --seccomp --ro-bind-data --remount-ro --size --disable-userns --json-status-fd --perms";

describe("sandboxHealth", () => {
  it("on this host: bubblewrap found, a user namespace made, the limits as the cgroups allow", async () => {
    requireBubblewrap();
    const health = await sandboxHealth();
    expect(health.ok).toBe(true);
    expect(health.bubblewrap.found).toBe(true);
    expect(health.bubblewrap.version).toMatch(/^\d+\.\d+/);
    expect(health.bubblewrap.missingOptions).toEqual([]);
    expect(health.userNamespaces).toEqual({
      usable: true,
      detail: "an unprivileged user namespace was made",
    });
    expect(health.runsAsRoot).toBe(process.getuid?.() === 0);
    const support = hostCgroupSupport();
    expect(health.cgroups.version).toBe(support.version);
    expect(health.limits.fileSize.by).toBe("rlimit");
    expect(health.limits.timeout.by).toBe("timer");
    if (support.version === "none") expect(health.advice.join(" ")).toContain("Delegate=yes");
  });
});

describe("describeLimits", () => {
  const features = parseBwrapFeatures("bubblewrap 0.8.0", FULL_HELP);

  it("without cgroups: processes and memory by rlimits, CPU not capped", () => {
    const limits = describeLimits({ version: "none", controllers: [], note: "" }, features);
    expect(limits.processes.by).toBe("rlimit");
    expect(limits.memory.by).toBe("rlimit");
    expect(limits.memory.detail).toContain("per process");
    expect(limits.cpu).toEqual({
      by: "none",
      detail: "not capped: a script may use every CPU until the timeout",
    });
    expect(limits.tmp.by).toBe("tmpfs");
  });

  it("with cgroup v1 pids and memory only: those by cgroup, CPU still not capped", () => {
    const limits = describeLimits(
      { version: "v1", folders: { pids: "/p", memory: "/m" }, controllers: ["pids", "memory"], note: "" },
      features,
    );
    expect([limits.processes.by, limits.memory.by, limits.cpu.by]).toEqual([
      "cgroup-v1",
      "cgroup-v1",
      "none",
    ]);
  });

  it("with cgroup v2 and every controller: all three by cgroup; an old bubblewrap leaves /tmp uncapped", () => {
    const old = parseBwrapFeatures("bubblewrap 0.4.0", FULL_HELP.replace("--size", ""));
    const limits = describeLimits(
      { version: "v2", folder: "/g", controllers: ["pids", "memory", "cpu"], note: "" },
      old,
    );
    expect([limits.processes.by, limits.memory.by, limits.cpu.by]).toEqual([
      "cgroup-v2",
      "cgroup-v2",
      "cgroup-v2",
    ]);
    expect(limits.tmp.by).toBe("none");
  });
});
