import { describe, expect, it } from "vitest";
import { INSTALL_SCRIPT, missingTools, requireTools } from "./required-tools.js";

describe("requireTools", () => {
  it("passes for tools on the PATH and fails, naming the install script, for one that is not", () => {
    expect(missingTools(["sh"])).toEqual([]);
    expect(() => requireTools("sh")).not.toThrow();
    expect(missingTools(["sh", "skillgate-no-such-tool"])).toEqual(["skillgate-no-such-tool"]);
    expect(() => requireTools("sh", "skillgate-no-such-tool")).toThrow(
      `this suite needs skillgate-no-such-tool, which is not installed: run \`sudo bash ${INSTALL_SCRIPT}\``,
    );
  });
});
