// The runner API over HTTP (runtimes.md §2): one method per call, each body as the spec writes it. A refusal is a
// RunnerApiError with the status and the server's `detail`; a server that cannot be reached is the socket's error.
import type { z } from "zod";
import type { Usage } from "./adapters/types.ts";
import type { OfficialEvent } from "./agui.ts";
import { postJson } from "./http-post.ts";
import {
  ClaimAnswerSchema,
  EventsAnswerSchema,
  HeartbeatAnswerSchema,
  type RegisterAnswer,
  RegisterAnswerSchema,
} from "./protocol.ts";
import type { RuntimeKind } from "./runtimes.ts";

export class RunnerApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${status}: ${detail}`);
    this.name = "RunnerApiError";
  }
}

export interface RegisterBody {
  name: string;
  host: string;
  version: string;
  runtimes: { name: string; kind: RuntimeKind; version?: string; tags: string[]; max_concurrent_tasks: number }[];
}

export type SeqEvent = OfficialEvent & { seq: number };

export interface CompleteBody {
  output: string;
  usage?: Usage;
  session_id?: string;
  branch?: string;
  /** The run's events not sent yet (to a server whose register answer says `complete_events`). */
  events?: SeqEvent[];
}

export interface FailBody {
  error: string;
  retryable: boolean;
}

/** No call waits longer than this for an answer, except the claim's long poll (its wait plus this). */
const CALL_TIMEOUT_MS = 30_000;

export class RunnerApi {
  private readonly base: string;

  constructor(
    url: string,
    private readonly token: string,
    private readonly runnerId: string,
  ) {
    this.base = `${url.replace(/\/+$/, "")}/api/v1/runner`;
  }

  register(body: RegisterBody): Promise<RegisterAnswer> {
    return this.post("/register", body, RegisterAnswerSchema);
  }

  async deregister(): Promise<void> {
    await this.post("/deregister", {});
  }

  async heartbeat(): Promise<string[]> {
    return (await this.post("/heartbeat", {}, HeartbeatAnswerSchema)).cancel;
  }

  /** A long poll: answers as soon as a task is claimable, or with none after `waitMs`. */
  async claim(runtimeIds: string[], maxTasks: number, waitMs: number, signal?: AbortSignal): Promise<unknown[]> {
    const body = { runtime_ids: runtimeIds, max_tasks: maxTasks, wait_ms: waitMs };
    return (await this.post("/claim", body, ClaimAnswerSchema, { signal, timeoutMs: waitMs + CALL_TIMEOUT_MS })).tasks;
  }

  /** Whether the task was cancelled under this runner. */
  async events(taskId: string, events: SeqEvent[]): Promise<boolean> {
    return (await this.post(`/tasks/${encodeURIComponent(taskId)}/events`, { events }, EventsAnswerSchema)).cancel;
  }

  async session(taskId: string, sessionId: string, workDir: string): Promise<void> {
    await this.post(`/tasks/${encodeURIComponent(taskId)}/session`, { session_id: sessionId, work_dir: workDir });
  }

  async complete(taskId: string, body: CompleteBody): Promise<void> {
    await this.post(`/tasks/${encodeURIComponent(taskId)}/complete`, body);
  }

  async fail(taskId: string, body: FailBody): Promise<void> {
    await this.post(`/tasks/${encodeURIComponent(taskId)}/fail`, body);
  }

  private async post(path: string, body: object): Promise<unknown>;
  private async post<S extends z.ZodType>(
    path: string,
    body: object,
    schema: S,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<z.infer<S>>;
  private async post(
    path: string,
    body: object,
    schema?: z.ZodType,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const { status, statusText, text } = await postJson(
      new URL(`${this.base}${path}`),
      JSON.stringify({ runner_id: this.runnerId, ...body }),
      {
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
        timeoutMs: options.timeoutMs ?? CALL_TIMEOUT_MS,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
    if (status < 200 || status > 299) throw new RunnerApiError(status, detailOf(text) ?? statusText);
    if (schema === undefined) return undefined;
    const parsed = schema.safeParse(text === "" ? {} : JSON.parse(text));
    if (!parsed.success) throw new RunnerApiError(502, `unexpected answer to ${path}: ${parsed.error.message}`);
    return parsed.data;
  }
}

function detailOf(text: string): string | undefined {
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    return typeof detail === "string" ? detail : detail === undefined ? undefined : JSON.stringify(detail);
  } catch {
    return text.slice(0, 200) || undefined;
  }
}
