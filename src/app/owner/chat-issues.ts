import type { ChatCounts, ChatLog, ChatSummary, ListChatsOptions } from "../../observe/chat-log.js";

/** The chats list with issue counts (docs/http-api.md, "Chats and audit"). */
export interface ChatIssues {
  /** Chats by latest activity, newest first, each with its declined, expired, failed and timed-out counts. */
  readonly chats: readonly ChatSummary[];
  /** The counts summed over the listed chats. */
  readonly totals: ChatCounts;
  /** Listed chats with at least one issue. */
  readonly withIssues: number;
}

/**
 * Each chat's issues (calls declined, expired, failed, timed out), as the owner's chats page
 * and `/create-skill` read them: reviewed chats are left out unless asked for.
 */
export async function chatIssues(chatLog: ChatLog, options: ListChatsOptions = {}): Promise<ChatIssues> {
  const chats = await chatLog.listChats(options);
  const totals = { declined: 0, expired: 0, failed: 0, timedOut: 0 };
  for (const chat of chats) {
    totals.declined += chat.counts.declined;
    totals.expired += chat.counts.expired;
    totals.failed += chat.counts.failed;
    totals.timedOut += chat.counts.timedOut;
  }
  return { chats, totals, withIssues: chats.filter((chat) => chat.issues > 0).length };
}
