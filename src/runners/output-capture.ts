import { StringDecoder } from "node:string_decoder";

/**
 * One output stream of a run, capped: the first `limit` bytes are kept (and streamed to
 * `onText` as they come, whole UTF-8 characters only); everything after is read and
 * dropped, so a child writing without end never blocks on a full pipe.
 */
export class OutputCapture {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  readonly #decoder = new StringDecoder("utf8");
  readonly #onText: ((text: string) => void) | undefined;
  #kept = 0;
  #truncated = false;

  constructor(limit: number, onText?: (text: string) => void) {
    this.#limit = Math.max(0, limit);
    this.#onText = onText;
  }

  /** Takes one chunk from the pipe. */
  push(chunk: Buffer): void {
    const room = this.#limit - this.#kept;
    if (room <= 0) {
      if (chunk.length > 0) this.#truncated = true;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    if (kept.length < chunk.length) this.#truncated = true;
    this.#chunks.push(kept);
    this.#kept += kept.length;
    if (this.#onText !== undefined) {
      const text = this.#decoder.write(kept);
      if (text !== "") this.#emit(text);
    }
  }

  /** True once anything was dropped. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** The kept bytes as text (a character cut at the limit becomes U+FFFD). */
  text(): string {
    if (this.#onText !== undefined) {
      const rest = this.#decoder.end();
      if (rest !== "") this.#emit(rest);
    }
    return Buffer.concat(this.#chunks, this.#kept).toString("utf8");
  }

  #emit(text: string): void {
    try {
      this.#onText?.(text);
    } catch {
      // A listener's failure must not stop the run or lose output.
    }
  }
}
