// Many event-stream subscribers in one process, kept cheap: raw sockets, and per frame only the `id:` line is read
// (a raw newline never occurs inside a `data:` line of JSON). Each subscriber records when each seq arrived; one probe
// also parses the frames for `created_at`, the time the change's transaction wrote its event.
import net from "node:net";

const ID_LINE = "\nid: ";

export interface StreamTarget {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
}

class Subscriber {
  /** Arrival time (epoch ms) of seq `base + 1 + index`; 0 = not (yet) seen. */
  readonly arrivals: Float64Array;
  duplicates = 0;
  outOfOrder = 0;
  connected = false;
  ended = false;
  private lastSeq = 0;
  private headerDone = false;
  private pending = "";
  private socket!: net.Socket;

  constructor(
    private readonly base: number,
    capacity: number,
    private readonly onFrame?: (frame: string) => void,
  ) {
    this.arrivals = new Float64Array(capacity);
  }

  open(target: StreamTarget): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket = net.connect(target.port, target.host, () => {
        const headers = Object.entries(target.headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("");
        this.socket.write(`GET ${target.path} HTTP/1.1\r\nhost: ${target.host}\r\n${headers}\r\n`);
      });
      this.socket.setEncoding("latin1");
      this.socket.on("data", (chunk: string) => {
        if (!this.headerDone) {
          const text = this.pending + chunk;
          const end = text.indexOf("\r\n\r\n");
          if (end < 0) {
            this.pending = text;
            return;
          }
          if (!text.startsWith("HTTP/1.1 200")) {
            reject(new Error(`stream refused: ${text.slice(0, 80)}`));
            return;
          }
          this.headerDone = true;
          this.connected = true;
          this.pending = "\n";
          resolve();
          chunk = text.slice(end + 4);
        }
        this.receive(chunk);
      });
      this.socket.on("error", reject);
      this.socket.on("close", () => {
        this.ended = true;
      });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: string): void {
    const at = performance.timeOrigin + performance.now();
    if (this.onFrame) {
      this.receiveFrames(chunk, at);
      return;
    }
    const text = this.pending + chunk;
    let consumed = 0;
    for (;;) {
      const start = text.indexOf(ID_LINE, consumed);
      if (start < 0) break;
      const lineEnd = text.indexOf("\n", start + ID_LINE.length);
      if (lineEnd < 0) break;
      this.record(Number(text.slice(start + ID_LINE.length, lineEnd)), at);
      consumed = lineEnd;
    }
    // Keep only a tail that may hold an id line cut in two.
    this.pending = text.slice(Math.max(consumed, text.length - 24));
  }

  /** The probe: whole frames, each handed on. */
  private receiveFrames(chunk: string, at: number): void {
    this.pending += chunk;
    for (let end = this.pending.indexOf("\n\n"); end >= 0; end = this.pending.indexOf("\n\n")) {
      const frame = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      const idLine = frame.split("\n").find((line) => line.startsWith("id: "));
      if (idLine) this.record(Number(idLine.slice(4)), at);
      this.onFrame!(frame);
    }
  }

  private record(seq: number, at: number): void {
    const index = seq - this.base - 1;
    if (index < 0 || index >= this.arrivals.length) return;
    if (this.arrivals[index] !== 0) this.duplicates++;
    else this.arrivals[index] = at;
    if (seq <= this.lastSeq) this.outOfOrder++;
    this.lastSeq = seq;
  }
}

export interface FanOutResult {
  p50: number;
  p99: number;
  max: number;
  delivered: number;
  missed: number;
  duplicated: number;
  outOfOrder: number;
  dropped: number;
}

export class StreamSubscribers {
  readonly subscribers: Subscriber[] = [];
  /** created_at (epoch ms) of seq `base + 1 + index`, from the probe. */
  private readonly createdAt: Float64Array;

  constructor(
    private readonly base: number,
    private readonly capacity: number,
  ) {
    this.createdAt = new Float64Array(capacity);
  }

  /** `count` subscribers plus the probe, opened 100 at a time. */
  async open(target: StreamTarget, count: number): Promise<void> {
    const probe = new Subscriber(this.base, this.capacity, (frame) => {
      const data = frame.split("\n").find((line) => line.startsWith("data: "));
      if (!data) return;
      const event = JSON.parse(data.slice(6)) as { seq: number; created_at: string };
      const index = event.seq - this.base - 1;
      if (index >= 0 && index < this.capacity)
        this.createdAt[index] = Date.parse(`${event.created_at}Z`) + micros(event);
    });
    await probe.open(target);
    this.subscribers.push(probe);
    for (let opened = 0; opened < count; opened += 100) {
      const batch = Array.from(
        { length: Math.min(100, count - opened) },
        () => new Subscriber(this.base, this.capacity),
      );
      await Promise.all(batch.map((subscriber) => subscriber.open(target)));
      this.subscribers.push(...batch);
    }
  }

  /** Every subscriber has seen seq `base + expected`, or has ended. */
  allReached(expected: number): boolean {
    return this.subscribers.every((subscriber) => subscriber.ended || subscriber.arrivals[expected - 1] !== 0);
  }

  /** Latency of every (subscriber, seq) delivery of the first `expected` seqs, and what went wrong. */
  result(expected: number): FanOutResult {
    const latencies = new Float64Array(expected * this.subscribers.length);
    let count = 0;
    let missed = 0;
    let duplicated = 0;
    let outOfOrder = 0;
    for (const subscriber of this.subscribers) {
      duplicated += subscriber.duplicates;
      outOfOrder += subscriber.outOfOrder;
      for (let index = 0; index < expected; index++) {
        const arrived = subscriber.arrivals[index]!;
        if (arrived === 0) missed++;
        else if (this.createdAt[index] !== 0) latencies[count++] = arrived - this.createdAt[index]!;
      }
    }
    const sorted = latencies.subarray(0, count).sort();
    const at = (q: number) => Math.round((sorted[Math.floor(q * (count - 1))] ?? 0) * 10) / 10;
    return {
      p50: at(0.5),
      p99: at(0.99),
      max: at(1),
      delivered: count,
      missed,
      duplicated,
      outOfOrder,
      dropped: this.subscribers.filter((subscriber) => subscriber.ended).length,
    };
  }

  close(): void {
    for (const subscriber of this.subscribers) subscriber.close();
  }
}

/** The sub-millisecond part of `created_at` (Date.parse keeps milliseconds only). */
const micros = (event: { created_at: string }) => Number(event.created_at.slice(23, 26) || "0") / 1000;
