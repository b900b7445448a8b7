/**
 * `skillgate/config`: the configuration file, the folders skillgate uses and the limits
 * that apply to skills. See docs/skills.md ("Configuration") and docs/limits.md.
 */

export { resolveFolders } from "../core/folders.js";
export { MAX_SKILL_CHARS, SKILL_DESC_MAX } from "../core/limits.js";
export { CONFIG_FILE, DEFAULT_CONFIG, loadConfig, parseConfig } from "./config.js";
