// A small legacy-SSE client for the benchmark: sessions that POST one tools/call at a time and wait for the reply on
// their own stream, with the latency of each call.
import http from "node:http";

const postAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const streamAgent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** Closes the idle keep-alive POST connections, so only the streams themselves stay open on the server. */
export function closeIdlePostConnections(): void {
  postAgent.destroy();
}

export class BenchSession {
  private pending = new Map<number, (reply: string) => void>();
  private buffer = "";
  private nextId = 1;
  private request!: http.ClientRequest;
  endpoint = "";

  private constructor(private readonly base: URL) {}

  static open(base: string): Promise<BenchSession> {
    const session = new BenchSession(new URL(base));
    return new Promise((resolve, reject) => {
      session.request = http.get(new URL("/sse", base), { agent: streamAgent }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`GET /sse: ${response.statusCode}`));
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          session.buffer += chunk;
          let end = session.buffer.indexOf("\n\n");
          while (end !== -1) {
            const frame = session.buffer.slice(0, end);
            session.buffer = session.buffer.slice(end + 2);
            if (frame.startsWith("event: endpoint\ndata: ")) {
              session.endpoint = frame.slice(22);
              resolve(session);
            } else if (frame.startsWith("event: message\ndata: ")) {
              const data = frame.slice(21);
              const id = JSON.parse(data).id as number;
              session.pending.get(id)?.(data);
              session.pending.delete(id);
            }
            end = session.buffer.indexOf("\n\n");
          }
        });
      });
      session.request.on("error", reject);
    });
  }

  /** One tools/call of `echo`; resolves with the reply's text once it arrives on the stream. */
  call(text: string): Promise<string> {
    const id = this.nextId++;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text } },
    });
    const reply = new Promise<string>((resolve) => this.pending.set(id, resolve));
    const post = http.request(new URL(this.endpoint, this.base), {
      method: "POST",
      agent: postAgent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    post.on("response", (response) => {
      if (response.statusCode !== 202) throw new Error(`POST ${this.endpoint}: ${response.statusCode}`);
      response.resume();
    });
    post.end(body);
    return reply;
  }

  close(): void {
    this.request.destroy();
  }
}

export interface SseLoadResult {
  callsPerSecond: number;
  p50: number;
  p99: number;
}

/** `sessions` sessions each calling back to back for `seconds`. */
export async function sseLoad(base: string, sessions: number, seconds: number): Promise<SseLoadResult> {
  const open = await Promise.all(Array.from({ length: sessions }, () => BenchSession.open(base)));
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    open.map(async (session) => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        await session.call("hi");
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  for (const session of open) session.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100;
  return { callsPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}
