import { describe, expect, it } from "vitest";
import { byMessage, outputLines, runScript, type ScriptRun } from "./run-script.js";

const SCRIPT = "scripts/cron_explain.py";
const START = "2025-01-06T08:00:00Z"; // a Monday

function run(args: unknown): ScriptRun {
  const result = runScript("cron-explain", SCRIPT, args);
  expect(result.leftInWorkingFolder).toEqual([]);
  expect(result.changedSkillFolder).toBe(false);
  expect(result.stderr).toBe("");
  return result;
}

/** The run times listed, without the weekday column. */
function runTimes(result: ScriptRun): string[] {
  return outputLines(result)
    .filter((line) => /^ {2}\d{4}-/.test(line))
    .map((line) => line.trim().split(/\s+/)[0] as string);
}

describe("cron-explain describes an expression in words", () => {
  it.each([
    ["*/15 9-17 * * 1-5", "Every 15 minutes, during hours 9 through 17, on Monday through Friday."],
    ["30 9,17 * * *", "At 09:30 and 17:30."],
    ["0 */2 * * *", "At minute 0 past every 2 hours."],
    ["5 4 * * sun", "At 04:05, on Sunday."],
    ["0 0 * * 7", "At 00:00, on Sunday."],
    ["0 12 * JAN-MAR/2 *", "At 12:00, in every 2 months from January through March."],
    ["0-10 8 * * 1-5", "At minutes 0 through 10, during hour 8, on Monday through Friday."],
    ["* 3 * * *", "Every minute, during hour 3."],
    ["0 6 */10 * *", "At 06:00, on days 1, 11, 21 and 31 of the month."],
    ["0 0 1,15 * mon", "At 00:00, on days 1 and 15 of the month or on Monday."],
  ])("%s", (expression, meaning) => {
    const result = run({ expression, count: 0 });
    expect(result.status).toBe(0);
    expect(outputLines(result)).toContain(`Meaning: ${meaning}`);
  });

  it("prints the fields with the values each allows", () => {
    const result = run({ expression: "*/20 9-11 * JUL-AUG 1-5", count: 0 });
    expect(outputLines(result)).toEqual([
      "Expression: */20 9-11 * JUL-AUG 1-5",
      "Meaning: Every 20 minutes, during hours 9 through 11, on Monday through Friday, in July through August.",
      "Fields:",
      "  minute        */20         0, 20, 40",
      "  hour          9-11         9, 10, 11",
      "  day-of-month  *            every day",
      "  month         JUL-AUG      July, August",
      "  day-of-week   1-5          Monday, Tuesday, Wednesday, Thursday, Friday",
    ]);
  });

  it("warns that two restricted day fields mean either, and lists runs that way", () => {
    const result = run({ expression: "0 0 1,15 * mon", start: START, count: 3 });
    expect(outputLines(result)).toContain(
      "Note: day-of-month and day-of-week are both restricted, so cron runs when EITHER matches.",
    );
    expect(runTimes(result)).toEqual([
      "2025-01-13T00:00:00+00:00",
      "2025-01-15T00:00:00+00:00",
      "2025-01-20T00:00:00+00:00",
    ]);
  });

  it("expands macros and explains @reboot without run times", () => {
    const weekly = run({ expression: "@weekly", start: START, count: 1 });
    expect(outputLines(weekly).slice(0, 3)).toEqual([
      "Expression: @weekly",
      "Expands to: 0 0 * * 0",
      "Meaning: At 00:00, on Sunday.",
    ]);
    expect(runTimes(weekly)).toEqual(["2025-01-12T00:00:00+00:00"]);
    const reboot = run({ expression: "@reboot" });
    expect(outputLines(reboot)).toEqual([
      "Expression: @reboot",
      "Meaning: Once, when the cron daemon starts (usually at boot). It has no schedule of run times.",
    ]);
  });
});

describe("cron-explain lists the next run times", () => {
  it("lists runs strictly after the start, with weekdays", () => {
    const result = run({ expression: "*/15 9-17 * * 1-5", start: START, count: 3 });
    expect(outputLines(result).slice(-4)).toEqual([
      "Next 3 runs after 2025-01-06T08:00:00+00:00 (UTC):",
      "  2025-01-06T09:00:00+00:00  Monday",
      "  2025-01-06T09:15:00+00:00  Monday",
      "  2025-01-06T09:30:00+00:00  Monday",
    ]);
    const exact = run({ expression: "0 9 * * *", start: "2025-01-06T09:00:00Z", count: 1 });
    expect(runTimes(exact)).toEqual(["2025-01-07T09:00:00+00:00"]);
  });

  it("restarts a step that does not divide the hour at minute 0", () => {
    const result = run({ expression: "*/7 * * * *", start: "2025-01-06T08:50:00Z", count: 3 });
    expect(runTimes(result)).toEqual([
      "2025-01-06T08:56:00+00:00",
      "2025-01-06T09:00:00+00:00",
      "2025-01-06T09:07:00+00:00",
    ]);
  });

  it("finds leap days years ahead and says when fewer runs exist", () => {
    const result = run({ expression: "0 0 29 2 *", start: START, count: 3 });
    expect(runTimes(result)).toEqual(["2028-02-29T00:00:00+00:00", "2032-02-29T00:00:00+00:00"]);
    expect(outputLines(result)).toContain("  (only 2 runs in the next 10 years)");
  });

  it("says so when an expression can never run", () => {
    const result = run({ expression: "0 0 31 4 *", start: START });
    expect(result.status).toBe(0);
    expect(outputLines(result).at(-1)).toBe(
      "  none: the expression matches no date in the next 10 years (such as day 31 of a 30-day month).",
    );
  });

  it("keeps the offset written in start", () => {
    const result = run({ expression: "30 2 * * *", start: "2025-10-25T00:00:00+02:00", count: 2 });
    expect(outputLines(result)).toContain("Next 2 runs after 2025-10-25T00:00:00+02:00 (UTC+02:00):");
    expect(runTimes(result)).toEqual(["2025-10-25T02:30:00+02:00", "2025-10-26T02:30:00+02:00"]);
  });

  it("applies a time zone's daylight saving time: the skipped hour has no run", () => {
    const spring = run({
      expression: "30 2 * * *",
      timezone: "Europe/Berlin",
      start: "2025-03-29T00:00:00",
      count: 3,
    });
    expect(runTimes(spring)).toEqual([
      "2025-03-29T02:30:00+01:00",
      "2025-03-31T02:30:00+02:00",
      "2025-04-01T02:30:00+02:00",
    ]);
    const autumn = run({ expression: "30 2 * * *", timezone: "Europe/Berlin", start: "2025-10-26T00:00:00" });
    expect(runTimes(autumn)[0]).toBe("2025-10-26T02:30:00+02:00");
    expect(runTimes(autumn)[1]).toBe("2025-10-27T02:30:00+01:00");
  });

  it("lists as many runs as count asks, up to 100", () => {
    expect(runTimes(run({ expression: "* * * * *", start: START, count: 100 }))).toHaveLength(100);
  });
});

describe("cron-explain refuses bad expressions and arguments", () => {
  it.each([
    ["0 0 * *", "ERROR: expected 5 fields (minute hour day-of-month month day-of-week), got 4."],
    [
      "0 0 0 * * *",
      "ERROR: expected 5 fields (minute hour day-of-month month day-of-week), got 6. A 6- or 7-field",
    ],
    ["61 * * * *", "ERROR: minute: 61 is out of range 0-59"],
    ["0 24 * * *", "ERROR: hour: 24 is out of range 0-23"],
    ["0 0 0 * *", "ERROR: day-of-month: 0 is out of range 1-31"],
    ["0 0 * 13 *", "ERROR: month: 13 is out of range 1-12"],
    ["0 0 * * 8", "ERROR: day-of-week: 8 is out of range 0-7"],
    ["0 0 L * *", 'ERROR: day-of-month: "L" is not standard cron syntax (L and W come from Quartz'],
    ["0 0 15W * *", 'ERROR: day-of-month: "15W" is not standard cron syntax'],
    ["0 0 ? * MON", 'ERROR: day-of-month: "?" is not standard cron syntax'],
    ["0 0 * * MON#2", 'ERROR: day-of-week: "#" is not standard cron syntax'],
    ["5-1 * * * *", "ERROR: minute: the range 5-1 runs backwards; cron does not wrap around"],
    ["*/0 * * * *", 'ERROR: minute: the step in "*/0" must be a whole number above 0'],
    ["1,,2 * * * *", 'ERROR: minute: "1,,2" has an empty part'],
    ["0 0 * * MONDAY", 'ERROR: day-of-week: write names as three letters, such as MON (got "MONDAY")'],
    ["0 0 * * xyz", 'ERROR: day-of-week: "xyz" is not a number or a three-letter name'],
    ["@often", 'ERROR: unknown macro "@often"'],
  ])("%s", (expression, message) => {
    const result = run({ expression });
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });

  it.each(
    byMessage([
      [{ expression: "" }, 'ERROR: expression must be a cron expression such as "*/15 9-17 * * 1-5"'],
      [{ expression: 5 }, 'ERROR: expression must be a cron expression such as "*/15 9-17 * * 1-5"'],
      [{ expression: "* ".repeat(300) }, "ERROR: expression is longer than 500 characters"],
      [{ expression: "* * * * *", count: 101 }, "ERROR: count must be a whole number from 0 to 100"],
      [{ expression: "* * * * *", count: 2.5 }, "ERROR: count must be a whole number from 0 to 100"],
      [{ expression: "* * * * *", start: "yesterday" }, 'ERROR: start "yesterday" is not an ISO 8601 time'],
      [{ expression: "* * * * *", timezone: "Mars/Olympus" }, 'ERROR: unknown timezone "Mars/Olympus"'],
      [
        { expression: "* * * * *", timezone: "" },
        'ERROR: timezone must be an IANA name such as "Europe/Berlin"',
      ],
    ]),
  )("%s", (message, args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });
});
