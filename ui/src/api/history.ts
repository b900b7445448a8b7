import { apiRequest, query, segment } from "./client.js";
import { listIn } from "./lists.js";
import type { AuditEvent, AuditPage, ChatSummary, Transcript } from "./types.js";

/** Chats and jobs with their issue counts (`GET /api/chats`). */
export async function listChats(): Promise<ChatSummary[]> {
  return listIn<ChatSummary>(await apiRequest("/chats"), "chats");
}

/** A chat's transcript. */
export function getTranscript(id: string): Promise<Transcript> {
  return apiRequest(`/chats/${segment(id)}/transcript`);
}

/** The filters of the audit trail. */
export interface AuditFilters {
  readonly skill?: string;
  readonly chat?: string;
  readonly since?: string;
  readonly cursor?: string;
}

/** One page of the audit trail (`GET /api/audit`). */
export async function getAudit(filters: AuditFilters): Promise<AuditPage> {
  const answer = await apiRequest<unknown>(
    `/audit${query({ skill: filters.skill, chat: filters.chat, since: filters.since, cursor: filters.cursor })}`,
  );
  const next =
    typeof answer === "object" && answer !== null && typeof (answer as { next?: unknown }).next === "string"
      ? (answer as { next: string }).next
      : undefined;
  return { events: listIn<AuditEvent>(answer, "events"), ...(next !== undefined ? { next } : {}) };
}
