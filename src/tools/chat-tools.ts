import type { ChatLog, ChatSummary } from "../observe/chat-log.js";
import { renderTranscript } from "../observe/chat-transcript.js";
import type { JsonSchema } from "../skill/parameters-schema.js";
import type { SkillReviews } from "../store/reviews.js";
import { hostText, unknownChatText } from "./call-texts.js";
import { readInput } from "./skill-tools.js";
import type { AnyTool, ToolDefinition } from "./tool.js";

/** What the chat-review tools need: the chat log, the reviews file, and whose reviews they are. */
export interface ChatToolsEnvironment {
  readonly chatLog: () => ChatLog;
  readonly reviews: () => Promise<SkillReviews>;
  /** The owner the reviews are recorded for. */
  readonly owner: string;
}

function describeChat(chat: ChatSummary): string {
  const { declined, expired, failed, timedOut } = chat.counts;
  const counts = `declined ${declined}, expired ${expired}, failed ${failed}, timed out ${timedOut}`;
  return `- ${chat.id} (${chat.kind}${chat.reviewed ? ", reviewed" : ""}; last active ${chat.updated}; ${counts})${chat.title ? `: ${chat.title}` : ""}`;
}

function listChats(
  environment: ChatToolsEnvironment,
): ToolDefinition<{ includeReviewed?: boolean; withIssuesOnly?: boolean; limit?: number }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      includeReviewed: { type: "boolean", description: "Also list chats already reviewed for skill ideas." },
      withIssuesOnly: {
        type: "boolean",
        description: "Only chats with declined, expired, failed or timed-out calls.",
      },
      limit: { type: "integer", minimum: 1, maximum: 200 },
    },
    additionalProperties: false,
  };
  return {
    name: "list_chats",
    tier: "read",
    description:
      "List recent chats and jobs with how many of their calls were declined, expired, failed or timed out: good places to look for a skill that is missing. " +
      'Send {} or {"withIssuesOnly": true, "limit": 20}. Chats already reviewed are left out unless you send "includeReviewed": true.',
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "list chats"),
    execute: async (input) => {
      try {
        const chats = await environment.chatLog().listChats({
          owner: environment.owner,
          ...(input.includeReviewed !== undefined ? { includeReviewed: input.includeReviewed } : {}),
          ...(input.withIssuesOnly !== undefined ? { withIssuesOnly: input.withIssuesOnly } : {}),
          limit: input.limit ?? 50,
        });
        return chats.length === 0 ? "No chats to review." : chats.map(describeChat).join("\n");
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

function readChatTranscript(
  environment: ChatToolsEnvironment,
): ToolDefinition<{ chat: string; kind?: "chat" | "job"; maxChars?: number }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      chat: { type: "string", minLength: 1, description: "The chat's or job's id, as list_chats shows it." },
      kind: { enum: ["chat", "job"], description: "Default chat." },
      maxChars: {
        type: "integer",
        minimum: 100,
        maximum: 200_000,
        description: "How much text at most (default 20,000).",
      },
    },
    required: ["chat"],
    additionalProperties: false,
  };
  return {
    name: "read_chat_transcript",
    tier: "read",
    description:
      'Read one chat\'s transcript to see what the person needed. Send {"chat": "CHAT_ID"}. Long transcripts are cut, with a note saying what is missing.',
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "read a chat transcript"),
    execute: async ({ chat, kind, maxChars }) => {
      try {
        const transcript = environment
          .chatLog()
          .readTranscript({ kind: kind ?? "chat", id: chat }, maxChars !== undefined ? { maxChars } : {});
        return transcript === undefined
          ? unknownChatText(kind ?? "chat", chat)
          : renderTranscript(transcript);
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

function markChatsReviewed(environment: ChatToolsEnvironment): ToolDefinition<{ chats: string[] }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      chats: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1, maxItems: 200 },
    },
    required: ["chats"],
    additionalProperties: false,
  };
  return {
    name: "mark_chats_reviewed",
    tier: "draft",
    description:
      'Record that you reviewed chats for skill ideas, so the next review skips them. Send {"chats": ["CHAT_ID", ...]}.',
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "draft", "mark chats reviewed"),
    execute: async ({ chats }) => {
      try {
        await (await environment.reviews()).markChatsReviewed(environment.owner, chats);
        return `Marked ${chats.length} chat(s) as reviewed.`;
      } catch (error) {
        return hostText(error);
      }
    },
  };
}

/** The chat-review tools: list_chats, read_chat_transcript (read) and mark_chats_reviewed (draft). */
export function chatTools(environment: ChatToolsEnvironment): AnyTool[] {
  return [listChats(environment), readChatTranscript(environment), markChatsReviewed(environment)];
}

/**
 * The context of a `/create-skill` review: what to do, and the chats worth reading first
 * (unreviewed, with declined, expired, failed or timed-out calls).
 */
export async function createSkillReviewContext(
  environment: ChatToolsEnvironment,
  limit = 20,
): Promise<string> {
  const candidates = await environment
    .chatLog()
    .listChats({ owner: environment.owner, withIssuesOnly: true, limit });
  const lines = [
    "Review recent chats for a skill that would have helped, and draft it for the owner.",
    "1. Read the transcripts of the chats below with read_chat_transcript (list_chats shows more).",
    "2. If a repeated need has no skill, write one with draft_skill: give sourceChats and a rationale. It is saved disabled for the owner to review.",
    "3. Mark the chats you read with mark_chats_reviewed, so the next review skips them.",
    "",
    candidates.length === 0
      ? "No unreviewed chats have declined, expired, failed or timed-out calls."
      : "Chats with issues, not yet reviewed:",
    ...candidates.map(describeChat),
  ];
  return lines.join("\n");
}
