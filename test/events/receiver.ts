// A webhook receiver on a real socket: records every request, answers as the test says.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What to answer: a status, optionally after a delay, or once a promise (the test's sync point) settles. */
export type Answer = number | { status: number; delayMs: number } | Promise<number>;

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests received and not yet answered, by path; and the most there ever were at once. */
  readonly open = new Map<string, number>();
  readonly mostOpen = new Map<string, number>();
  answer: (request: Received, receivedBefore: number) => Answer = () => 200;
  private readonly server: http.Server;
  private readonly sockets = new Set<import("node:net").Socket>();
  url = "";

  private constructor() {
    this.server = http.createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        const received: Received = { path: request.url ?? "", headers: flatten(request.headers), body };
        const before = this.received.filter((other) => other.headers["webhook-id"] === received.headers["webhook-id"]);
        this.received.push(received);
        const answer = this.answer(received, before.length);
        const open = (this.open.get(received.path) ?? 0) + 1;
        this.open.set(received.path, open);
        this.mostOpen.set(received.path, Math.max(open, this.mostOpen.get(received.path) ?? 0));
        const reply = (status: number) => {
          this.open.set(received.path, (this.open.get(received.path) ?? 1) - 1);
          if (!response.destroyed) response.writeHead(status, { "content-type": "text/plain" }).end("ok");
        };
        if (answer instanceof Promise) void answer.then(reply);
        else {
          const { status, delayMs } = typeof answer === "number" ? { status: answer, delayMs: 0 } : answer;
          setTimeout(() => reply(status), delayMs);
        }
      });
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(host = "127.0.0.1", port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve, reject) => {
      receiver.server.once("error", reject);
      receiver.server.listen(port, host, resolve);
    });
    const address = receiver.server.address() as AddressInfo;
    receiver.url = `http://${host}:${address.port}`;
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Requests to one path, e.g. one hook's. */
  to(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  /** Verifies a request the way a receiver would, with the standardwebhooks library; returns the event. */
  static verify(request: Received, secret: string): any {
    return new Webhook(secret).verify(request.body, request.headers);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function flatten(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
