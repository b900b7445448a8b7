/**
 * Tool input checks against JSON Schema. The validators live in the skill layer
 * (skill/schema-validate.ts) so the capability pipeline, below the tools, checks payloads
 * with the same compiled-once cache and the same `HOST:` sentences.
 */
export { checkAgainstSchema, describeSchemaError, prepareValidators } from "../skill/schema-validate.js";
