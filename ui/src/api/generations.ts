import { apiRequest, segment } from "./client.js";
import { listIn } from "./lists.js";

/** A generation's state (docs/capabilities.md, "Hot reload"). */
export type GenerationState = "shadow" | "waiting_approval" | "active" | "draining" | "closed" | "rejected";

/** One generation of a reloading Lua skill, as `GET /api/generations` lists it. */
export interface Generation {
  /** `<skill>@<number>`. */
  readonly id: string;
  readonly skill: string;
  readonly number: number;
  readonly state: GenerationState;
  readonly manifestDigest: string;
  /** ISO time it was built. */
  readonly createdAt: string;
  /** For a switch waiting for approval: what it would widen, one line each. */
  readonly widening: readonly string[];
  /** Why it was rejected, or what the owner answered. */
  readonly detail?: string;
}

/** Every generation, by skill, newest first within a skill (`GET /api/generations`). */
export async function listGenerations(): Promise<Generation[]> {
  return listIn<Generation>(await apiRequest("/generations"), "generations");
}

/** The owner's answer to a switch waiting for approval; the serving process acts on it. */
export function answerGeneration(id: string, answer: "approve" | "reject"): Promise<unknown> {
  return apiRequest(`/generations/${segment(id)}/${answer}`, { method: "POST", json: {} });
}
