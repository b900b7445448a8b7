import { metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reportArgumentRepairs } from "../../src/observe/argument-repair.js";
import { type LogFields, type Logger, streamLogger } from "../../src/observe/logger.js";
import {
  ARGUMENTS_COERCED_COUNTER,
  argumentsCoercedCounter,
  METER_NAME,
  recordArgumentRepair,
  skillgateMeter,
} from "../../src/observe/metrics.js";

let exporter: InMemoryMetricExporter;
let reader: PeriodicExportingMetricReader;
let provider: MeterProvider;

beforeEach(() => {
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // The interval never fires within a test; values are read with forceFlush.
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  provider = new MeterProvider({ readers: [reader] });
  expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
});

afterEach(async () => {
  metrics.disable();
  await provider.shutdown();
});

/** The counter's exported data, after a flush. */
async function coercedMetric(): Promise<MetricData | undefined> {
  await reader.forceFlush();
  const scopes = exporter.getMetrics().at(-1)?.scopeMetrics ?? [];
  const scope = scopes.find((each) => each.scope.name === METER_NAME);
  return scope?.metrics.find((metric) => metric.descriptor.name === ARGUMENTS_COERCED_COUNTER);
}

/** The counter's value per `kind` attribute. */
async function countsByKind(): Promise<Record<string, number>> {
  const metric = await coercedMetric();
  const counts: Record<string, number> = {};
  for (const point of metric?.dataPoints ?? []) counts[String(point.attributes.kind)] = point.value as number;
  return counts;
}

/** A logger that keeps its lines. */
function keepingLogger(): Logger & { lines: [string, string, LogFields | undefined][] } {
  const lines: [string, string, LogFields | undefined][] = [];
  return {
    lines,
    info: (message, fields) => lines.push(["info", message, fields]),
    warn: (message, fields) => lines.push(["warn", message, fields]),
  };
}

describe("metrics", () => {
  it("skillgate.skill_arguments_coerced counts repairs by kind, with its description and unit", async () => {
    recordArgumentRepair("string");
    recordArgumentRepair("string");
    recordArgumentRepair("node");
    const metric = await coercedMetric();
    expect(metric?.descriptor).toMatchObject({
      name: "skillgate.skill_arguments_coerced",
      unit: "{call}",
    });
    expect(metric?.descriptor.description).toContain("kind=string");
    expect(metric?.dataPoints.map((point) => Object.keys(point.attributes))).toEqual([["kind"], ["kind"]]);
    expect(await countsByKind()).toEqual({ string: 2, node: 1 });
  });

  it("uses a provider registered after the first use, and the meter is named skillgate", async () => {
    metrics.disable();
    recordArgumentRepair("node"); // No provider: a no-op that must not throw.
    expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
    recordArgumentRepair("node");
    expect(await countsByKind()).toEqual({ node: 1 });
    expect(argumentsCoercedCounter()).toBe(argumentsCoercedCounter());
    skillgateMeter().createCounter("skillgate.test_probe").add(1);
    await reader.forceFlush();
    const names = exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.filter((scope) => scope.scope.name === METER_NAME)
      .flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name));
    expect(names).toContain("skillgate.test_probe");
  });
});

describe("reportArgumentRepairs", () => {
  it.each([
    [["string"], "were coerced from a JSON string", { coerced: true, injectedNode: false }, { string: 1 }],
    [["node"], "had a top-level node moved inside", { coerced: false, injectedNode: true }, { node: 1 }],
    [
      ["string", "node"],
      "were coerced from a JSON string",
      { coerced: true, injectedNode: true },
      { string: 1, node: 1 },
    ],
  ] as const)("%j logs one line and counts each kind", async (repairs, what, fields, counts) => {
    const logger = keepingLogger();
    reportArgumentRepairs({ skill: "disk-usage", script: "scripts/usage.py", repairs }, logger);
    expect(logger.lines).toEqual([
      ["info", `Skill arguments for disk-usage/scripts/usage.py ${what}.`, fields],
    ]);
    expect(await countsByKind()).toEqual(counts);
  });

  it("a call without repairs logs and counts nothing", async () => {
    const logger = keepingLogger();
    reportArgumentRepairs({ skill: "disk-usage", script: "scripts/usage.py", repairs: [] }, logger);
    expect(logger.lines).toEqual([]);
    expect(await countsByKind()).toEqual({});
  });
});

describe("streamLogger", () => {
  it("writes one line per message with its fields, whatever the message holds", () => {
    const written: string[] = [];
    const logger = streamLogger((line) => written.push(line));
    logger.info("Skill arguments for a/b were coerced from a JSON string.", { coerced: true, count: 2 });
    logger.warn("two\nlines\u2028and\u0000more", { name: "x\ny" });
    expect(written).toEqual([
      "skillgate: info: Skill arguments for a/b were coerced from a JSON string. coerced=true count=2\n",
      "skillgate: warn: two lines and more name=x y\n",
    ]);
  });

  it("a writer that throws does not escape", () => {
    const logger = streamLogger(() => {
      throw new Error("stderr closed");
    });
    expect(() => logger.info("hello")).not.toThrow();
  });
});
