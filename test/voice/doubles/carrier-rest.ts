// A double of the carrier's REST API (Twilio 2010-04-01): a real HTTP server that checks HTTP basic auth, parses
// form bodies, records every request and answers as Twilio does (a Call resource, or Twilio's JSON error). A test can
// make the next requests fail, and can attach the media stream of a call so that a hang-up or a redirect stops it the
// way Twilio does (a `stop` frame, then the socket closes).
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { eventually } from "../../helpers/eventually.ts";
import { listenOnLoopback } from "../../helpers/loopback.ts";
import type { CarrierCall } from "./carrier.ts";

export const TEST_ACCOUNT_SID = "AC00000000000000000000000000000001";
export const TEST_AUTH_TOKEN = "test-twilio-auth-token";

export interface CarrierRestRequest {
  method: string;
  path: string;
  /** The call the request is about (`Calls/{CallSid}.json`), when it names one. */
  callSid: string | undefined;
  /** The form body, each name with all its values. */
  params: Record<string, string[]>;
  /** The first value of a parameter. */
  param(name: string): string | undefined;
}

export interface CarrierRestFailure {
  status: number;
  code: number;
  message: string;
}

export class CarrierRestDouble {
  readonly requests: CarrierRestRequest[] = [];
  /** Requests refused for bad credentials (not recorded in `requests`). */
  unauthorized = 0;
  private readonly failures: CarrierRestFailure[] = [];
  private readonly streams = new Map<string, CarrierCall>();
  private readonly server: Server;
  url = "";

  private constructor(
    readonly accountSid: string,
    private readonly authToken: string,
  ) {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  static async start(accountSid = TEST_ACCOUNT_SID, authToken = TEST_AUTH_TOKEN): Promise<CarrierRestDouble> {
    const double = new CarrierRestDouble(accountSid, authToken);
    const port = await listenOnLoopback(double.server);
    double.url = `http://127.0.0.1:${port}`;
    return double;
  }

  /** The settings that point the call server at this double. */
  get env(): Record<string, string> {
    return { TWILIO_ACCOUNT_SID: this.accountSid, TWILIO_AUTH_TOKEN: this.authToken, TWILIO_API_BASE: this.url };
  }

  /** The next request (one per call of this method) answers with this Twilio error. */
  failNext(failure: CarrierRestFailure): void {
    this.failures.push(failure);
  }

  /** A hang-up or a redirect of this call stops its media stream, as Twilio does. */
  attach(call: CarrierCall): void {
    this.streams.set(call.callSid, call);
  }

  async waitForRequests(count: number, timeoutMs = 5_000): Promise<CarrierRestRequest> {
    return eventually(() => this.requests[count - 1], `${count} request(s) at the carrier REST double`, timeoutMs);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (!this.authorized(request.headers.authorization)) {
      this.unauthorized++;
      return this.answer(response, 401, {
        code: 20003,
        message: "Authenticate",
        more_info: "https://www.twilio.com/docs/errors/20003",
        status: 401,
      });
    }
    const params: Record<string, string[]> = {};
    if ((request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString("utf8"))) {
        params[name] = [...(params[name] ?? []), value];
      }
    }
    const path = (request.url ?? "").split("?")[0] ?? "";
    const callPath = new RegExp(`^/2010-04-01/Accounts/${this.accountSid}/Calls/([^/]+)\\.json$`).exec(path);
    const recorded: CarrierRestRequest = {
      method: request.method ?? "",
      path,
      callSid: callPath ? decodeURIComponent(callPath[1]!) : undefined,
      params,
      param: (name) => params[name]?.[0],
    };
    this.requests.push(recorded);

    const failure = this.failures.shift();
    if (failure) {
      return this.answer(response, failure.status, {
        ...failure,
        more_info: `https://www.twilio.com/docs/errors/${failure.code}`,
      });
    }
    if (request.method !== "POST") return this.answer(response, 405, { code: 20004, message: "Method not allowed" });
    if (path === `/2010-04-01/Accounts/${this.accountSid}/Calls.json`) {
      return this.answer(response, 201, { sid: `CA${Date.now().toString(16).padStart(32, "0")}`, status: "queued" });
    }
    if (!recorded.callSid) {
      return this.answer(response, 404, { code: 20404, message: `The requested resource ${path} was not found` });
    }
    const stream = this.streams.get(recorded.callSid);
    if (stream && (recorded.param("Status") === "completed" || recorded.param("Twiml") || recorded.param("Url"))) {
      stream.stop();
      stream.socket.close(1000);
    }
    const status = recorded.param("Status") === "completed" ? "completed" : "in-progress";
    return this.answer(response, 200, { sid: recorded.callSid, account_sid: this.accountSid, status });
  }

  private authorized(header: string | undefined): boolean {
    const expected = Buffer.from(`Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString("base64")}`);
    const given = Buffer.from(header ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private answer(response: ServerResponse, status: number, body: Record<string, unknown>): void {
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }
}
