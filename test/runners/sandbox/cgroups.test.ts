import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CgroupHost,
  detectCgroups,
  hostCgroupSupport,
  parseCgroupMounts,
  selfPaths,
} from "../../../src/runners/sandbox/cgroup-detect.js";
import { createRunCgroup, SUPERVISOR_CGROUP } from "../../../src/runners/sandbox/cgroup-run.js";
import { DEFAULT_SANDBOX_RESOURCES } from "../../../src/runners/sandbox/limits.js";
import { temporaryFolder } from "./harness.js";

const HYBRID_MOUNTINFO = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
  "42 23 0:40 / /mnt/with\\040space rw - cgroup2 cgroup2 rw",
].join("\n");

describe("reading /proc", () => {
  it("finds cgroup mounts, their type, options and escaped paths", () => {
    const mounts = parseCgroupMounts(HYBRID_MOUNTINFO);
    expect(mounts.map((mount) => [mount.type, mount.mountPoint])).toEqual([
      ["cgroup", "/sys/fs/cgroup/cpu,cpuacct"],
      ["cgroup", "/sys/fs/cgroup/memory"],
      ["cgroup", "/sys/fs/cgroup/pids"],
      ["cgroup2", "/sys/fs/cgroup/unified"],
      ["cgroup2", "/mnt/with space"],
    ]);
    expect(mounts[0]?.superOptions).toEqual(["rw", "cpu", "cpuacct"]);
  });

  it("reads this process's path per controller, the v2 one under the empty name", () => {
    const paths = selfPaths("12:pids:/a\n4:memory:/api/x\n2:cpu,cpuacct:/\n0::/user.slice/app.service\n");
    expect(Object.fromEntries(paths)).toEqual({
      pids: "/a",
      memory: "/api/x",
      cpu: "/",
      cpuacct: "/",
      "": "/user.slice/app.service",
    });
  });
});

/** A cgroup v2 tree made of plain files, the way a delegated group looks to its owner. */
function fakeV2(controllers: string): { host: CgroupHost; group: string } {
  const root = temporaryFolder("skillgate-cgroup-");
  const group = join(root, "app.service");
  mkdirSync(group);
  writeFileSync(join(group, "cgroup.controllers"), controllers);
  writeFileSync(join(group, "cgroup.subtree_control"), "");
  writeFileSync(join(group, "cgroup.procs"), "");
  return {
    group,
    host: {
      selfCgroup: "0::/app.service\n",
      mountInfo: `50 23 0:40 / ${root} rw - cgroup2 cgroup2 rw`,
      isRoot: false,
      pid: process.pid,
    },
  };
}

describe("detectCgroups", () => {
  it("uses a writable cgroup v2 group with the controllers it offers", () => {
    const { host, group } = fakeV2("cpuset cpu io memory pids");
    const support = detectCgroups(host);
    expect(support).toEqual({
      version: "v2",
      folder: group,
      controllers: ["pids", "memory", "cpu"],
      note: `cgroup v2 in ${group} (pids, memory, cpu)`,
    });
  });

  it("does not use a v2 group that offers none of the controllers (not delegated)", () => {
    const { host } = fakeV2("cpuset io");
    const support = detectCgroups(host);
    expect(support.version).toBe("none");
    expect(support.note).toContain("offers none of pids, memory, cpu");
    expect(support.note).toContain("only when skillgate runs as root");
  });

  it("does not use a v2 group it cannot write to", () => {
    if (process.getuid?.() === 0) return expect(detectCgroups(fakeV2("pids").host).version).toBe("v2");
    const { host, group } = fakeV2("pids memory");
    chmodSync(join(group, "cgroup.subtree_control"), 0o444);
    expect(detectCgroups(host).note).toContain("not writable");
  });

  it("ignores cgroup v1 unless it runs as root, and reports none when nothing is mounted", () => {
    const support = detectCgroups({
      selfCgroup: "4:memory:/\n",
      mountInfo: HYBRID_MOUNTINFO,
      isRoot: false,
      pid: 1,
    });
    expect(support.version).toBe("none");
    expect(detectCgroups({ selfCgroup: "", mountInfo: "", isRoot: true, pid: 1 })).toEqual({
      version: "none",
      controllers: [],
      note: "no cgroup v2 hierarchy is mounted; no writable cgroup v1 hierarchy with pids, memory or cpu",
    });
  });

  it("on this host, agrees with what the kernel offers", () => {
    const support = hostCgroupSupport();
    if (support.version === "v1")
      for (const controller of support.controllers)
        expect(existsSync(support.folders[controller] ?? "")).toBe(true);
    if (support.version === "v2") expect(existsSync(join(support.folder, "cgroup.controllers"))).toBe(true);
    if (support.version === "none") expect(support.controllers).toEqual([]);
  });
});

describe("createRunCgroup on cgroup v2", () => {
  it("enables the controllers, writes the limits and names the procs file", () => {
    const { host, group } = fakeV2("cpu memory pids");
    const support = detectCgroups(host);
    const run = createRunCgroup(support, "skillgate-1-abc", {
      ...DEFAULT_SANDBOX_RESOURCES,
      cpus: 1.5,
    }).cgroup;
    expect(run?.version).toBe("v2");
    expect(run?.controllers).toEqual(["pids", "memory", "cpu"]);
    expect(readFileSync(join(group, "cgroup.subtree_control"), "utf8")).toBe("+pids +memory +cpu");
    const folder = join(group, "skillgate-1-abc");
    expect(readFileSync(join(folder, "pids.max"), "utf8")).toBe("256");
    expect(readFileSync(join(folder, "memory.max"), "utf8")).toBe(String(1024 * 1024 * 1024));
    expect(readFileSync(join(folder, "cpu.max"), "utf8")).toBe("150000 100000");
    expect(run?.procsFiles).toEqual([join(folder, "cgroup.procs")]);
    expect(existsSync(join(group, SUPERVISOR_CGROUP))).toBe(false);
  });

  it("says why when the group cannot be made, and says nothing is wrong when the host has none", () => {
    const { host, group } = fakeV2("pids");
    const support = detectCgroups(host);
    mkdirSync(join(group, "skillgate-1-taken"));
    const taken = createRunCgroup(support, "skillgate-1-taken", DEFAULT_SANDBOX_RESOURCES);
    expect(taken.cgroup).toBeUndefined();
    expect(taken.problem).toBe(`${join(group, "skillgate-1-taken")} could not be made (EEXIST)`);
    expect(
      createRunCgroup({ version: "none", controllers: [], note: "" }, "x", DEFAULT_SANDBOX_RESOURCES),
    ).toEqual({});
  });

  it("says why when the controllers cannot be enabled (the group is not a folder)", () => {
    const root = temporaryFolder("skillgate-cgroup-");
    const notAFolder = join(root, "file");
    writeFileSync(notAFolder, "");
    const attempt = createRunCgroup(
      { version: "v2", folder: notAFolder, controllers: ["pids"], note: "" },
      "skillgate-1-x",
      DEFAULT_SANDBOX_RESOURCES,
    );
    expect(attempt.cgroup).toBeUndefined();
    expect(attempt.problem).toBe(`the controllers could not be enabled in ${notAFolder} (ENOTDIR)`);
  });
});
