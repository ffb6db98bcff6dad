// The carrier's REST API (Twilio's 2010-04-01 API), for call control: hang up, redirect, place calls.
// Plain `fetch` with HTTP basic auth (account SID, auth token) and form bodies, as Twilio's own clients send them.

const API_VERSION = "2010-04-01";
const DEFAULT_TIMEOUT_MS = 10_000;

export interface CarrierRestOptions {
  accountSid: string;
  authToken: string;
  /** e.g. https://api.twilio.com (tests point it at a double). */
  apiBase: string;
  timeoutMs?: number;
}

/** The fields of a Call resource the server reads. */
export interface CarrierCallResource {
  sid: string;
  status: string;
}

/** A request the carrier refused or never answered; `code` is the carrier's error code when it gave one. */
export class CarrierApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | undefined,
    readonly code: number | undefined,
  ) {
    super(message);
    this.name = "CarrierApiError";
  }

  /** What the model is told: the carrier's code and message, nothing of our credentials. */
  get forModel(): string {
    return this.code === undefined ? this.message : `carrier error ${this.code}: ${this.message}`;
  }
}

export class CarrierRest {
  private readonly authorization: string;
  private readonly accountUrl: string;

  constructor(private readonly options: CarrierRestOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`;
    const base = options.apiBase.replace(/\/+$/, "");
    this.accountUrl = `${base}/${API_VERSION}/Accounts/${encodeURIComponent(options.accountSid)}`;
  }

  /** Ends a live call (`Status=completed`). */
  hangUp(callSid: string): Promise<CarrierCallResource> {
    return this.updateCall(callSid, { Status: "completed" });
  }

  /** Replaces what a live call is doing with this TwiML document (its media stream stops). */
  redirect(callSid: string, twiml: string): Promise<CarrierCallResource> {
    return this.updateCall(callSid, { Twiml: twiml });
  }

  updateCall(callSid: string, params: Record<string, string>): Promise<CarrierCallResource> {
    return this.post(`Calls/${encodeURIComponent(callSid)}.json`, params);
  }

  /** Places a call (`Calls.json`); repeated parameters (StatusCallbackEvent) are given as arrays. */
  createCall(params: Record<string, string | string[]>): Promise<CarrierCallResource> {
    return this.post("Calls.json", params);
  }

  private async post(path: string, params: Record<string, string | string[]>): Promise<CarrierCallResource> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    let response: Response;
    try {
      response = await fetch(`${this.accountUrl}/${path}`, {
        method: "POST",
        headers: {
          authorization: this.authorization,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      const reason = error instanceof Error && error.name === "TimeoutError" ? "timed out" : "could not be reached";
      throw new CarrierApiError(`the carrier's REST API ${reason}`, undefined, undefined);
    }
    const text = await response.text().catch(() => "");
    const payload = parseJson(text);
    if (!response.ok) {
      const code = typeof payload.code === "number" ? payload.code : undefined;
      const message = typeof payload.message === "string" ? payload.message : `HTTP ${response.status}`;
      throw new CarrierApiError(message, response.status, code);
    }
    return { sid: typeof payload.sid === "string" ? payload.sid : "", status: String(payload.status ?? "") };
  }
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
