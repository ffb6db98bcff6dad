// Talking to POST /agui as a plain SSE client would, plus the rows the agent tests need.

import type { ApiClient } from "./app.ts";

interface SseFrame {
  event: string | undefined;
  data: any;
  /** The frame's text as sent, without the blank line after it. */
  raw: string;
}

interface AguiResponse {
  status: number;
  headers: Headers;
  /** The whole body as received. */
  text: string;
  /** Event frames (comments left out). */
  frames: SseFrame[];
  /** `type` of each frame, in order. */
  types: string[];
  json: any;
}

export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.split("\n\n")) {
    if (block.trim() === "") continue;
    const lines = block.split("\n").filter((line) => !line.startsWith(":"));
    if (lines.length === 0) continue;
    const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
    const data = lines
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6))
      .join("\n");
    frames.push({ event, data: data ? JSON.parse(data) : undefined, raw: block });
  }
  return frames;
}

export async function postAgui(
  baseUrl: string,
  body: unknown,
  options: { path?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<AguiResponse> {
  const response = await fetch(`${baseUrl}${options.path ?? "/agui"}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...options.headers },
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await response.text();
  const isStream = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
  const frames = isStream ? parseSse(text) : [];
  let json: unknown;
  if (!isStream) {
    try {
      json = JSON.parse(text);
    } catch {}
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    frames,
    types: frames.map((f) => f.data?.type),
    json,
  };
}

export const seedRequest = (
  threadId: string,
  runId: string,
  messages: { id: string; role: string; content: string }[],
) => ({
  threadId,
  runId,
  state: { messages },
});

/** Creates an agent through the agents API (status idle, so a run's status changes show). */
export async function createAgent(
  api: ApiClient,
  token: string,
  workspaceId: string,
  fields: { name: string; model?: string; instructions?: string; tools?: string[]; description?: string },
): Promise<string> {
  const response = await api.post(`workspaces/${workspaceId}/agents/`, { status: "idle", ...fields }, { token });
  if (response.status !== 201)
    throw new Error(`agent create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id;
}

/** A workspace API key, created through the API by an admin (the secret is only in this response). */
export async function createApiKey(api: ApiClient, adminToken: string, workspaceId: string): Promise<string> {
  const response = await api.post(`workspaces/${workspaceId}/api-keys`, { name: "agui test" }, { token: adminToken });
  if (response.status !== 201)
    throw new Error(`api key create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.key;
}
