// A realtime speech provider double: a real WebSocket server speaking the OpenAI Realtime protocol,
// in the GA or the beta dialect, that records everything it receives and sends what a test tells it to.
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { eventually } from "../../helpers/eventually.ts";

export type ProviderDialect = "ga" | "beta";
export type WireMessage = Record<string, any>;

export interface ProviderDoubleOptions {
  dialect: ProviderDialect;
  /** Refuse every upgrade with this HTTP status. */
  refuseWith?: number;
  /** Answer each input_audio_buffer.append at once with an audio delta carrying the same bytes (benchmark). */
  echoAudio?: boolean;
  /** Send nothing on connect (for a provider that never says session.created). */
  silent?: boolean;
}

export class ProviderConnection {
  readonly received: WireMessage[] = [];
  readonly closed: Promise<number>;
  private waiters: Array<() => void> = [];

  constructor(
    readonly socket: WebSocket,
    readonly headers: IncomingHttpHeaders,
    private readonly options: ProviderDoubleOptions,
  ) {
    this.closed = new Promise((resolve) => socket.on("close", (code: number) => resolve(code)));
    // Like OpenAI's, the double reads JSON text frames only: a binary frame is kept as such, never parsed.
    socket.on("message", (data: RawData, isBinary: boolean) =>
      isBinary ? this.received.push({ type: "(binary frame)" }) : this.receive(data),
    );
    if (!options.silent) this.send(sessionCreated(options.dialect));
  }

  send(message: WireMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** The bytes of every input_audio_buffer.append, in arrival order. */
  appendedAudio(): Buffer {
    return Buffer.concat(
      this.received
        .filter((message) => message.type === "input_audio_buffer.append")
        .map((message) => Buffer.from(message.audio, "base64")),
    );
  }

  ofType(type: string): WireMessage[] {
    return this.received.filter((message) => message.type === type);
  }

  async waitFor(predicate: (received: WireMessage[]) => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) throw new Error(`provider double: condition not met in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForType(type: string, count = 1, timeoutMs?: number): Promise<WireMessage> {
    await this.waitFor((received) => received.filter((message) => message.type === type).length >= count, timeoutMs);
    return this.ofType(type)[count - 1]!;
  }

  /** Sends provider audio for one item as deltas of `chunkBytes`, dialect-appropriate event name. */
  sendAudio(itemId: string, audio: Buffer, chunkBytes = 800): void {
    const type = this.options.dialect === "ga" ? "response.output_audio.delta" : "response.audio.delta";
    for (let offset = 0; offset < audio.length; offset += chunkBytes) {
      const delta = audio.subarray(offset, offset + chunkBytes).toString("base64");
      this.send({ type, response_id: "resp_1", item_id: itemId, output_index: 0, content_index: 0, delta });
    }
  }

  private receive(data: RawData): void {
    const message = JSON.parse(data.toString()) as WireMessage;
    if (this.options.echoAudio && message.type === "input_audio_buffer.append") {
      this.socket.send(
        `{"type":"response.output_audio.delta","item_id":"item_echo","content_index":0,"delta":"${message.audio}"}`,
      );
      return;
    }
    this.received.push(message);
    if (message.type === "session.update") this.send({ type: "session.updated", session: message.session });
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

export class RealtimeProviderDouble {
  readonly connections: ProviderConnection[] = [];
  private connectionWaiters: Array<(connection: ProviderConnection) => void> = [];

  private constructor(
    private readonly server: WebSocketServer,
    readonly url: string,
  ) {}

  static async start(options: ProviderDoubleOptions): Promise<RealtimeProviderDouble> {
    const server = new WebSocketServer({
      host: "127.0.0.1",
      port: 0,
      verifyClient: (_info, accept) =>
        options.refuseWith ? accept(false, options.refuseWith, "Unauthorized") : accept(true),
    });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const double = new RealtimeProviderDouble(server, `ws://127.0.0.1:${port}/v1/realtime?model=gpt-realtime`);
    server.on("connection", (socket, request) => {
      const connection = new ProviderConnection(socket, request.headers, options);
      double.connections.push(connection);
      const waiter = double.connectionWaiters.shift();
      waiter?.(connection);
    });
    return double;
  }

  /** The n-th connection (1-based), waiting for it if needed. */
  async connection(n = 1, timeoutMs = 5_000): Promise<ProviderConnection> {
    return eventually(() => this.connections[n - 1], `connection ${n} at the provider double`, timeoutMs);
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function sessionCreated(dialect: ProviderDialect): WireMessage {
  if (dialect === "ga") {
    return {
      type: "session.created",
      event_id: "event_1",
      session: {
        type: "realtime",
        object: "realtime.session",
        id: "sess_ga",
        model: "gpt-realtime",
        output_modalities: ["audio"],
        audio: {
          input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "server_vad" } },
          output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin" },
        },
        tools: [],
        tool_choice: "auto",
      },
    };
  }
  return {
    type: "session.created",
    event_id: "event_1",
    session: {
      id: "sess_beta",
      object: "realtime.session",
      model: "gpt-4o-realtime-preview",
      modalities: ["text", "audio"],
      voice: "alloy",
      input_audio_format: "pcm16",
      output_audio_format: "pcm16",
      turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 },
      tools: [],
      tool_choice: "auto",
      temperature: 0.8,
    },
  };
}
