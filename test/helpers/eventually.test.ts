import { describe, expect, it } from "vitest";
import { eventually } from "./eventually.js";

describe("eventually", () => {
  it("returns as soon as the check passes, with what it returned", async () => {
    let tries = 0;
    const value = await eventually("the third try", () => {
      tries += 1;
      return tries >= 3 && `try ${tries}`;
    });
    expect(value).toBe("try 3");
    expect(tries).toBe(3);
  });

  it("counts a check that returns nothing without throwing as passed (assertions inside)", async () => {
    let ready = false;
    setImmediate(() => {
      ready = true;
    });
    await eventually("ready", () => expect(ready).toBe(true));
    expect(ready).toBe(true);
  });

  it("fails after its bound, naming what was awaited and the last failure", async () => {
    await expect(eventually("the file appears", () => false, { timeoutMs: 50 })).rejects.toThrow(
      "eventually: the file appears did not happen within 50 ms; it was still false",
    );
    await expect(
      eventually("the list empties", () => expect([1]).toEqual([]), { timeoutMs: 50 }),
    ).rejects.toThrow(
      /^eventually: the list empties did not happen within 50 ms; the last try failed: expected/,
    );
  });
});
