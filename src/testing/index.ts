/**
 * Test helpers shipped with skillgate (`skillgate/testing`): fakes at the true
 * boundaries, a model and a runner, for embedders' own tests.
 */

export { FakeRunner } from "./fake-runner.js";
export type { ScriptedStep, ScriptedTranscript } from "./scripted-model.js";
export { ScriptedModel, scriptedApprover } from "./scripted-model.js";
