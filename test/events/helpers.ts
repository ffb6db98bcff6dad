// Helpers for the event tests: a server-sent-event client on a real socket.
import http from "node:http";
import { eventually } from "../helpers/eventually.ts";

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** An event-stream connection: every frame received, in order, and how the response ended. */
export class SseClient {
  readonly frames: SseFrame[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  body = "";
  private buffer = "";
  private request!: http.ClientRequest;
  private response: http.IncomingMessage | undefined;

  private constructor() {}

  /** Opens `url`; resolves once the response head arrived (whatever its status). */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      client.request = http.get(url, { headers, agent: false }, (response) => {
        client.response = response;
        client.status = response.statusCode ?? 0;
        client.headers = response.headers;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => client.receive(chunk));
        response.on("close", () => {
          client.ended = true;
        });
        resolve(client);
      });
      client.request.on("error", (error) => {
        client.ended = true;
        if (client.status === 0) reject(error);
      });
    });
  }

  /** Event frames (not comments) received so far. */
  get events(): SseFrame[] {
    return this.frames.filter((frame) => frame.comment === undefined);
  }

  /** Parsed `data` of the event frames. */
  get data(): any[] {
    return this.events.map((frame) => JSON.parse(frame.data ?? "null"));
  }

  get seqs(): number[] {
    return this.events.map((frame) => Number(frame.id));
  }

  waitForEvents(count: number, timeoutMs = 15_000): Promise<SseFrame[]> {
    return eventually(() => this.events.length >= count && this.events, `${count} events`, timeoutMs);
  }

  waitForEnd(timeoutMs = 15_000): Promise<true> {
    return eventually(() => this.ended, "the stream to end", timeoutMs);
  }

  pause(): void {
    this.response?.pause();
  }

  resume(): void {
    this.response?.resume();
  }

  close(): void {
    this.request.destroy();
  }

  private receive(chunk: string): void {
    this.body += this.status === 200 ? "" : chunk;
    this.buffer += chunk;
    let end = this.buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame: SseFrame = {};
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "") frame.comment = value;
        else if (field === "id" || field === "event") frame[field] = value;
        else if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
      }
      this.frames.push(frame);
      end = this.buffer.indexOf("\n\n");
    }
  }
}
