import { describe, expect, it } from "vitest";
import {
  CapabilityTimeoutSignal,
  ConcurrencyGuard,
} from "../../../src/capabilities/pipeline/concurrency-guard.js";

/** A task that waits until released (or its signal aborts, when it listens). */
function held(listen = true) {
  let release: (value: string) => void = () => {};
  let seen: AbortSignal | undefined;
  const task = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      seen = signal;
      release = resolve;
      if (listen) signal.addEventListener("abort", () => reject(signal.reason));
    });
  return { task, release: (value: string) => release(value), signal: () => seen };
}

const call = { capability: "workflow.code_review", provider: "p", providerLimit: 1, timeoutMs: 60_000 };

describe("concurrency guard", () => {
  it("runs a call and gives its slots back", async () => {
    const guard = new ConcurrencyGuard();
    expect(await guard.run(call, async () => "done")).toEqual({ ok: true, value: "done" });
    expect(guard.running("provider:p")).toBe(0);
  });

  it("refuses a call over the provider's limit with capability_busy", async () => {
    const guard = new ConcurrencyGuard();
    const first = held();
    const running = guard.run(call, first.task);
    const second = await guard.run(call, async () => "never");
    expect(second).toMatchObject({ ok: false, refusal: { code: "capability_busy" } });
    first.release("one");
    expect(await running).toEqual({ ok: true, value: "one" });
    expect(await guard.run(call, async () => "again")).toEqual({ ok: true, value: "again" });
  });

  it("refuses a call over the capability's limit with capability_busy, across providers", async () => {
    const guard = new ConcurrencyGuard({ capabilityLimit: () => 2 });
    const tasks = [held(), held()];
    const running = tasks.map((item, index) => guard.run({ ...call, provider: `p${index}` }, item.task));
    const third = await guard.run({ ...call, provider: "p9" }, async () => "never");
    expect(third).toMatchObject({ ok: false, refusal: { code: "capability_busy" } });
    for (const item of tasks) item.release("x");
    await Promise.all(running);
  });

  it("answers capability_timeout and aborts the provider's signal", async () => {
    const guard = new ConcurrencyGuard();
    const slow = held();
    const result = await guard.run({ ...call, timeoutMs: 20 }, slow.task);
    expect(result).toMatchObject({ ok: false, refusal: { code: "capability_timeout" } });
    expect(slow.signal()?.aborted).toBe(true);
    expect(slow.signal()?.reason).toBeInstanceOf(CapabilityTimeoutSignal);
  });

  it("keeps the slot of a provider that ignores its signal until it really stops", async () => {
    const guard = new ConcurrencyGuard();
    const stubborn = held(false);
    const result = await guard.run({ ...call, timeoutMs: 10 }, stubborn.task);
    expect(result).toMatchObject({ ok: false, refusal: { code: "capability_timeout" } });
    expect(await guard.run(call, async () => "x")).toMatchObject({
      ok: false,
      refusal: { code: "capability_busy" },
    });
    stubborn.release("late");
    await new Promise((resolve) => setImmediate(resolve));
    expect(guard.running("provider:p")).toBe(0);
  });

  it("ends as capability_interrupted when the caller's signal aborts", async () => {
    const guard = new ConcurrencyGuard();
    const controller = new AbortController();
    const slow = held();
    const running = guard.run({ ...call, signal: controller.signal }, slow.task);
    controller.abort(new Error("stop"));
    expect(await running).toMatchObject({ ok: false, refusal: { code: "capability_interrupted" } });
    expect(slow.signal()?.aborted).toBe(true);
    const before = new AbortController();
    before.abort();
    expect(await guard.run({ ...call, signal: before.signal }, async () => "x")).toMatchObject({
      ok: false,
      refusal: { code: "capability_interrupted" },
    });
  });

  it("passes a provider's throw back", async () => {
    const guard = new ConcurrencyGuard();
    const error = new Error("boom");
    expect(await guard.run(call, async () => Promise.reject(error))).toEqual({ ok: "thrown", error });
    expect(guard.running("capability:workflow.code_review")).toBe(0);
  });
});
