import { randomBytes } from "node:crypto";
import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { METER_NAME } from "./metrics.js";
import { telemetryConfigured } from "./telemetry-environment.js";

export { EXPORTER_VARIABLES, telemetryConfigured } from "./telemetry-environment.js";

/**
 * OpenTelemetry for tool calls and capability invocations, after the GenAI semantic
 * conventions: one `execute_tool {name}` span per call (`gen_ai.operation.name=execute_tool`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`), the agent-skill attributes
 * on the spans of loading a skill and reading a skill resource, the histogram
 * `gen_ai.execute_tool.duration` (seconds) and the counter `skillgate.tool.calls` by status.
 *
 * Only the API is imported here: every span and instrument is a no-op until a provider is
 * registered. skillgate registers one itself only when the owner configured an exporter
 * through the standard `OTEL_*` variables ({@link startTelemetryFromEnvironment}), and then
 * loads `@opentelemetry/sdk-node` with `await import()`; without them the SDK is never loaded.
 */

/** The tracer's name. */
export const TRACER_NAME = "skillgate";
/** The GenAI duration histogram of tool executions, in seconds. */
export const TOOL_DURATION_HISTOGRAM = "gen_ai.execute_tool.duration";
/** Tool calls and capability invocations by `gen_ai.tool.name` and `status`. */
export const TOOL_CALLS_COUNTER = "skillgate.tool.calls";

/** What an `execute_tool` span is about. */
export interface ToolSpanDetails {
  /** The tool's name: a model tool (`load_skill`) or a capability (`workflow.code_review`). */
  readonly name: string;
  /** The call's id (the broker's request id, or the invocation's). */
  readonly callId: string;
  /** `function` for model tools, `extension` for capabilities (a provider behind the pipeline). */
  readonly type?: "function" | "extension";
  readonly description?: string;
  /** More attributes: `gen_ai.skill.name`, `gen_ai.skill.resource.name`, `skillgate.capability.provider`, … */
  readonly attributes?: Attributes;
}

/** How the traced work ended: its status, and `error.type` when it did not end well. */
export interface ToolOutcome {
  readonly status: string;
  readonly errorType?: string;
  readonly attributes?: Attributes;
}

const instruments = new WeakMap<MeterProvider, { duration: Histogram; calls: Counter }>();

function instrumentsOf(): { duration: Histogram; calls: Counter } {
  const provider = metrics.getMeterProvider();
  let found = instruments.get(provider);
  if (found === undefined) {
    const meter = provider.getMeter(METER_NAME);
    found = {
      duration: meter.createHistogram(TOOL_DURATION_HISTOGRAM, {
        description: "Duration of tool executions (model tools and capability invocations)",
        unit: "s",
      }),
      calls: meter.createCounter(TOOL_CALLS_COUNTER, {
        description: "Tool calls and capability invocations, by tool name and how they ended",
        unit: "{call}",
      }),
    };
    instruments.set(provider, found);
  }
  return found;
}

/**
 * Runs `work` inside an `execute_tool {name}` span (active, so nested spans are its children),
 * then ends it with `outcome(result)` and records the duration and the count. A thrown error
 * ends the span as an error of its class and is thrown on. Telemetry never fails the work.
 */
export async function traceToolCall<Result>(
  details: ToolSpanDetails,
  work: () => Promise<Result>,
  outcome: (result: Result) => ToolOutcome,
): Promise<Result> {
  const started = performance.now();
  let span: Span | undefined;
  try {
    span = trace.getTracer(TRACER_NAME).startSpan(`execute_tool ${details.name}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": details.name,
        "gen_ai.tool.call.id": details.callId,
        "gen_ai.tool.type": details.type ?? "function",
        ...(details.description !== undefined ? { "gen_ai.tool.description": details.description } : {}),
        ...details.attributes,
      },
    });
  } catch {
    span = undefined;
  }
  const run = () => work();
  let result: Result;
  try {
    result =
      span === undefined ? await run() : await context.with(trace.setSpan(context.active(), span), run);
  } catch (error) {
    finish(span, details, started, { status: "failed", errorType: errorTypeOf(error) });
    throw error;
  }
  finish(span, details, started, safeOutcome(outcome, result));
  return result;
}

function safeOutcome<Result>(outcome: (result: Result) => ToolOutcome, result: Result): ToolOutcome {
  try {
    return outcome(result);
  } catch {
    return { status: "ok" };
  }
}

function finish(
  span: Span | undefined,
  details: ToolSpanDetails,
  started: number,
  outcome: ToolOutcome,
): void {
  try {
    const failed = outcome.status !== "ok";
    const errorType = failed ? (outcome.errorType ?? outcome.status) : undefined;
    if (span !== undefined) {
      span.setAttribute("skillgate.status", outcome.status);
      if (outcome.attributes !== undefined) span.setAttributes(outcome.attributes);
      if (errorType !== undefined) {
        span.setAttribute("error.type", errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      }
      span.end();
    }
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": details.name,
      ...(errorType !== undefined ? { "error.type": errorType } : {}),
    };
    const { duration, calls } = instrumentsOf();
    duration.record((performance.now() - started) / 1000, attributes);
    calls.add(1, { "gen_ai.tool.name": details.name, status: outcome.status });
  } catch {
    // A broken telemetry SDK must not fail the call it observes.
  }
}

function errorTypeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string")
    return (error as { code: string }).code;
  return error instanceof Error ? error.name : "Error";
}

/** The trace id of the active span, or a fresh random one when nothing is tracing. */
export function currentTraceId(): string {
  const active = trace.getActiveSpan()?.spanContext();
  if (active !== undefined && active.traceId !== "00000000000000000000000000000000") return active.traceId;
  return randomBytes(16).toString("hex");
}

/** A started SDK: flushes and stops it. */
export interface TelemetryHandle {
  shutdown(): Promise<void>;
}

let started: Promise<TelemetryHandle | undefined> | undefined;

/**
 * Starts the OpenTelemetry Node SDK when the environment configures an exporter: it reads the
 * standard variables itself (exporters, endpoints, protocol, `OTEL_SERVICE_NAME`, default
 * `skillgate`). No automatic instrumentations are installed. Once per process; without the
 * variables nothing is imported and `undefined` comes back.
 */
export function startTelemetryFromEnvironment(
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<TelemetryHandle | undefined> {
  if (!telemetryConfigured(environment)) return Promise.resolve(undefined);
  started ??= (async () => {
    const { NodeSDK } = await import("@opentelemetry/sdk-node");
    const sdk = new NodeSDK({
      serviceName: environment.OTEL_SERVICE_NAME ?? "skillgate",
      instrumentations: [],
    });
    sdk.start();
    return { shutdown: () => sdk.shutdown() };
  })();
  return started;
}
