/**
 * `node --import tsx chat-writer.ts <data> <tag> <count>`: opens the chat log of `<data>`
 * and, `count` times, counts a failed call in chat `shared`, appends a message and adds
 * grant `skill:<tag>-<n>@00000000` to chat `shared`. Waits at the barrier first (see run-child.ts); prints `done` at the end.
 */
import { ChatLog } from "../../../src/observe/chat-log.js";
import { waitForGo } from "./run-child.js";

const [data, tag, count] = process.argv.slice(2);
if (data === undefined || tag === undefined || count === undefined) {
  process.stderr.write("usage: chat-writer.ts <data> <tag> <count>\n");
  process.exit(2);
}
await waitForGo();
const chats = ChatLog.open({ dataFolder: data });
for (let index = 0; index < Number(count); index += 1) {
  chats.recordOutcome({ kind: "chat", id: "shared" }, "failed");
  chats.appendMessage("shared", { role: "tool", text: `${tag} ${index}` });
  chats.addGrant("shared", `skill:${tag}-${index}@00000000`);
}
chats.close();
process.stdout.write("done\n");
