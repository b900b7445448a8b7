import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveFolders } from "../../src/core/folders.js";

describe("resolveFolders", () => {
  it("uses the XDG defaults on Linux", () => {
    expect(resolveFolders({ env: { HOME: "/home/ada" }, platform: "linux" })).toEqual({
      config: "/home/ada/.config/skillgate",
      data: "/home/ada/.local/share/skillgate",
      home: "/home/ada",
    });
  });

  it("uses the XDG defaults on other Unix systems", () => {
    expect(resolveFolders({ env: { HOME: "/usr/home/ada" }, platform: "freebsd" }).config).toBe(
      "/usr/home/ada/.config/skillgate",
    );
  });

  it("honours absolute XDG_CONFIG_HOME and XDG_DATA_HOME", () => {
    const folders = resolveFolders({
      env: { HOME: "/home/ada", XDG_CONFIG_HOME: "/etc/xdg-ada", XDG_DATA_HOME: "/srv/data" },
      platform: "linux",
    });
    expect(folders.config).toBe("/etc/xdg-ada/skillgate");
    expect(folders.data).toBe("/srv/data/skillgate");
  });

  it("ignores relative and empty XDG values, as the XDG specification says", () => {
    for (const value of ["relative/config", "./x", "", "~/.config"]) {
      const folders = resolveFolders({
        env: { HOME: "/home/ada", XDG_CONFIG_HOME: value, XDG_DATA_HOME: value },
        platform: "linux",
      });
      expect(folders.config).toBe("/home/ada/.config/skillgate");
      expect(folders.data).toBe("/home/ada/.local/share/skillgate");
    }
  });

  it("puts both folders under SKILLGATE_HOME, over XDG", () => {
    const folders = resolveFolders({
      env: { HOME: "/home/ada", SKILLGATE_HOME: "/opt/skillgate", XDG_CONFIG_HOME: "/etc/xdg" },
      platform: "linux",
    });
    expect(folders).toEqual({
      config: "/opt/skillgate/config",
      data: "/opt/skillgate/data",
      home: "/home/ada",
    });
  });

  it("resolves a relative SKILLGATE_HOME against the working folder", () => {
    const folders = resolveFolders({
      env: { HOME: "/home/ada", SKILLGATE_HOME: "state" },
      platform: "linux",
    });
    expect(folders.config).toBe(resolve("state", "config"));
  });

  it("ignores an empty SKILLGATE_HOME", () => {
    const folders = resolveFolders({ env: { HOME: "/home/ada", SKILLGATE_HOME: "" }, platform: "linux" });
    expect(folders.config).toBe("/home/ada/.config/skillgate");
  });

  it("lets explicit options win over everything", () => {
    const folders = resolveFolders({
      config: "/explicit/config",
      data: "/explicit/data",
      home: "/explicit/home",
      env: { HOME: "/home/ada", SKILLGATE_HOME: "/opt/skillgate", XDG_CONFIG_HOME: "/etc/xdg" },
      platform: "linux",
    });
    expect(folders).toEqual({ config: "/explicit/config", data: "/explicit/data", home: "/explicit/home" });
  });

  it("an explicit home moves the defaults with it", () => {
    expect(resolveFolders({ home: "/h", env: { HOME: "/home/ada" }, platform: "linux" }).config).toBe(
      "/h/.config/skillgate",
    );
  });

  it("uses Application Support on macOS for both folders", () => {
    const folders = resolveFolders({ env: { HOME: "/Users/ada" }, platform: "darwin" });
    expect(folders).toEqual({
      config: "/Users/ada/Library/Application Support/skillgate",
      data: "/Users/ada/Library/Application Support/skillgate",
      home: "/Users/ada",
    });
  });

  it("macOS ignores XDG variables", () => {
    const folders = resolveFolders({
      env: { HOME: "/Users/ada", XDG_CONFIG_HOME: "/x" },
      platform: "darwin",
    });
    expect(folders.config).toBe("/Users/ada/Library/Application Support/skillgate");
  });

  it("uses APPDATA and LOCALAPPDATA on Windows, with Windows paths", () => {
    const folders = resolveFolders({
      env: {
        USERPROFILE: "C:\\Users\\ada",
        APPDATA: "C:\\Users\\ada\\AppData\\Roaming",
        LOCALAPPDATA: "D:\\Local",
      },
      platform: "win32",
    });
    expect(folders).toEqual({
      config: "C:\\Users\\ada\\AppData\\Roaming\\skillgate",
      data: "D:\\Local\\skillgate",
      home: "C:\\Users\\ada",
    });
  });

  it("falls back to the profile's AppData folders on Windows", () => {
    const folders = resolveFolders({ env: { USERPROFILE: "C:\\Users\\ada" }, platform: "win32" });
    expect(folders.config).toBe("C:\\Users\\ada\\AppData\\Roaming\\skillgate");
    expect(folders.data).toBe("C:\\Users\\ada\\AppData\\Local\\skillgate");
  });

  it("SKILLGATE_HOME works on Windows too", () => {
    const folders = resolveFolders({
      env: { USERPROFILE: "C:\\Users\\ada", SKILLGATE_HOME: "E:\\sg" },
      platform: "win32",
    });
    expect(folders.config).toBe("E:\\sg\\config");
    expect(folders.data).toBe("E:\\sg\\data");
  });

  it("falls back to the account's home folder when HOME is unset or empty", () => {
    expect(resolveFolders({ env: {}, platform: "linux" }).home).toBe(resolve(homedir()));
    expect(resolveFolders({ env: { HOME: "" }, platform: "linux" }).home).toBe(resolve(homedir()));
  });

  it("with no options reads the process environment and gives absolute folders", () => {
    const folders = resolveFolders();
    expect(isAbsolute(folders.config)).toBe(true);
    expect(isAbsolute(folders.data)).toBe(true);
    expect(isAbsolute(folders.home)).toBe(true);
  });
});
