// Talking to POST /agui as a plain SSE client would, plus the rows the agent tests need.

import type { Db } from "../../src/db/index.ts";
import { newId, now, toJson } from "../../src/db/values.ts";
import { generateApiKey } from "../../src/platform/api-keys/secrets.ts";

export interface SseFrame {
  event: string | undefined;
  data: any;
  /** The frame's text as sent, without the blank line after it. */
  raw: string;
}

export interface AguiResponse {
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

export async function insertAgent(
  db: Db,
  workspaceId: string,
  fields: { name: string; model?: string | null; instructions?: string | null; tools?: string[]; description?: string },
): Promise<string> {
  const id = newId();
  const at = now();
  await db
    .insertInto("agents")
    .values({
      id,
      workspace_id: workspaceId,
      name: fields.name,
      description: fields.description ?? null,
      instructions: fields.instructions ?? null,
      model: fields.model ?? null,
      tools: toJson(fields.tools ?? []),
      status: "idle",
      runtime_mode: "cloud",
      runtime_config: "{}",
      max_concurrent_tasks: 1,
      owner_type: null,
      owner_id: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

export async function insertApiKey(db: Db, workspaceId: string, userId: string): Promise<string> {
  const { key, prefix, hash } = generateApiKey();
  await db
    .insertInto("api_keys")
    .values({
      id: newId(),
      workspace_id: workspaceId,
      name: "test key",
      prefix,
      key_hash: hash,
      created_by: userId,
      created_at: now(),
      last_used_at: null,
    })
    .execute();
  return key;
}
