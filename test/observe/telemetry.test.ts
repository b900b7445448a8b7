import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { CapabilityPipeline } from "../../src/capabilities/pipeline/invoke.js";
import { silentLogger } from "../../src/observe/logger.js";
import { TOOL_DURATION_HISTOGRAM, telemetryConfigured } from "../../src/observe/telemetry.js";
import { memoryIndex, provider } from "../capabilities/helpers/memory-index.js";
import { isolatedFolders, makeTree } from "../helpers/skill-tree.js";

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
});

const caller = {
  kind: "turn" as const,
  agentId: "chat-otel",
  runtimeMode: "normal" as const,
  interactive: true,
  scope: { kind: "chat" as const, id: "chat-otel" },
};

async function metricPoints(
  name: string,
): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  await reader.forceFlush();
  const batches = metricExporter.getMetrics();
  const last = batches.at(-1);
  const found = last?.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((metric) => metric.descriptor.name === name);
  return (found?.dataPoints ?? []).map((point) => ({ attributes: point.attributes, value: point.value }));
}

describe("OpenTelemetry, with an in-memory exporter", () => {
  it("an invocation is an execute_tool span with the GenAI attributes, and counts in the duration histogram", async () => {
    spans.reset();
    const pipeline = new CapabilityPipeline({ index: memoryIndex([provider({ id: "code-review-skill" })]) });
    const ok = await pipeline.invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      caller,
    );
    const refused = await pipeline.invoke(
      { capability: "workflow.code_review", payload: { scope: "$(id)" } },
      caller,
    );
    expect(ok.ok).toBe(true);
    expect(refused.ok).toBe(false);
    const finished = spans.getFinishedSpans();
    expect(finished.map((span) => span.name)).toEqual([
      "execute_tool workflow.code_review",
      "execute_tool workflow.code_review",
    ]);
    const [first, second] = finished;
    expect(first?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "workflow.code_review",
      "gen_ai.tool.call.id": ok.record.requestId,
      "gen_ai.tool.type": "extension",
      "skillgate.capability.provider": "code-review-skill",
      "skillgate.status": "ok",
    });
    expect(first?.attributes["error.type"]).toBeUndefined();
    expect(second?.attributes).toMatchObject({
      "error.type": "payload_shell",
      "skillgate.status": "refused",
    });
    // The record's trace id is the span's: the audit line and the trace meet.
    expect(ok.record.traceId).toBe(first?.spanContext().traceId);
    const durations = await metricPoints(TOOL_DURATION_HISTOGRAM);
    expect(durations.some((point) => point.attributes["gen_ai.tool.name"] === "workflow.code_review")).toBe(
      true,
    );
    expect(durations.some((point) => point.attributes["error.type"] === "payload_shell")).toBe(true);
    const counts = await metricPoints("skillgate.capability.invocations");
    expect(counts.map((point) => point.attributes.status).sort()).toEqual(["ok", "refused"]);
  });

  it("every broker call is an execute_tool span; invoke_capability's holds the invocation's as its child", async () => {
    spans.reset();
    const skillgate = createSkillgate({
      ...isolatedFolders(makeTree()),
      roots: [],
      builtins: false,
      audit: false,
      logger: silentLogger,
      capabilityIndex: memoryIndex([provider({ id: "code-review-skill" })]),
    });
    try {
      const turn = skillgate.createTurn({ chatId: "chat-otel" });
      await turn.call("invoke_capability", {
        capability: "workflow.code_review",
        payload: { scope: "workspace" },
      });
      await turn.call("load_skill", { skill: "nothing-here" });
      const finished = spans.getFinishedSpans();
      const outer = finished.find((span) => span.name === "execute_tool invoke_capability");
      const inner = finished.find((span) => span.name === "execute_tool workflow.code_review");
      expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
      const load = finished.find((span) => span.name === "execute_tool load_skill");
      expect(load?.attributes).toMatchObject({
        "gen_ai.tool.name": "load_skill",
        "gen_ai.skill.name": "nothing-here",
      });
      const calls = await metricPoints("skillgate.tool.calls");
      expect(calls.some((point) => point.attributes["gen_ai.tool.name"] === "load_skill")).toBe(true);
    } finally {
      skillgate.close();
    }
  });

  it("is configured only by an exporter variable, and never when disabled", () => {
    expect(telemetryConfigured({})).toBe(false);
    expect(telemetryConfigured({ OTEL_SERVICE_NAME: "x" })).toBe(false);
    expect(telemetryConfigured({ OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(telemetryConfigured({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_SDK_DISABLED: "true" })).toBe(
      false,
    );
  });
});
