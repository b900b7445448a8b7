/**
 * What a tool call is, for the policy: its tier and the mode of the turn it is made in.
 * A skill's own tier (`skillgate.tier`) is one of the first three.
 */
export type ToolTier = "read" | "change" | "destructive" | "draft" | "skill-edit";

/** Every tier, in order of risk for display. */
export const TOOL_TIERS: readonly ToolTier[] = ["read", "draft", "change", "destructive", "skill-edit"];

/**
 * The kind of turn: a person's `chat`, an unattended `job`, or `plan` mode, where the
 * model may look but not change anything.
 */
export type TurnMode = "chat" | "job" | "plan";

/** Every mode. */
export const TURN_MODES: readonly TurnMode[] = ["chat", "job", "plan"];

/** Tools that read or run a skill; a skill that is not runnable this turn is refused them. */
export const SKILL_USE_TOOLS: readonly string[] = [
  "load_skill",
  "read_skill_resource",
  "run_skill_script",
  "read_skill",
];
