// The one way the dashboard talks to the server: JSON over /api/v1 with the bearer token in a header (never in a
// URL). Errors keep the API's `detail`, and 422s are split into per-field messages for the form that sent them.
import type { Session } from "./api-types.ts";

const TOKEN_KEY = "agent-platform.session";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 422 messages by body field (the last `loc` part), for showing next to that field. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();
let current: Session | null = readStoredSession();

function readStoredSession(): Session | null {
  try {
    const raw = localStorage.getItem(TOKEN_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session | null): void {
  current = session;
  if (session) localStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  else localStorage.removeItem(TOKEN_KEY);
  for (const listener of listeners) listener(session);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function authHeaders(): Record<string, string> {
  return current ? { authorization: `Bearer ${current.token}` } : {};
}

const FIELD_NAMES: Record<string, string> = {
  url: "URL",
  color: "Colour",
  content: "Comment",
  max_concurrent_tasks: "Max concurrent tasks",
  runtime_config: "MCP servers",
  "runtime_config.runtime": "Runs on",
  assignee_id: "Assignee",
  project_id: "Project",
  parent_issue_id: "Parent issue",
  depends_on_issue_id: "Dependency",
};

/** `due_date` → "Due date": the field as a person calls it. */
function fieldName(field: string): string {
  const known = FIELD_NAMES[field];
  if (known) return known;
  const words = field.replace(/_id$/, "").replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One 422 item in plain words naming its field; messages the server already words for people are kept. */
function plainMessage(field: string, item: { type?: string; msg?: string }): string {
  const name = fieldName(field);
  const msg = item.msg ?? "";
  const limit = /([<>]=?)\s*(\d+)/.exec(msg)?.[2];
  if (item.type === "missing" || /received undefined/.test(msg)) return `${name} is required`;
  if (item.type === "too_small" && /string/.test(msg))
    return limit === "1" ? `${name} is required` : `${name} must be at least ${limit} characters`;
  if (item.type === "too_big" && /string/.test(msg)) return `${name} is too long: at most ${limit} characters`;
  if (item.type === "too_small" && limit) return `${name} must be at least ${limit}`;
  if (item.type === "too_big" && limit) return `${name} must be at most ${limit}`;
  if (/^(Invalid input|Invalid option|Invalid value)/.test(msg) || msg === "") return `${name} is not valid`;
  return msg;
}

/** Turns a failed response into an ApiError; a 401 on a signed-in call ends the session (back to sign-in). */
export async function failure(response: Response): Promise<ApiError> {
  let detail: unknown;
  try {
    detail = (await response.json()).detail;
  } catch {
    detail = undefined;
  }
  if (response.status === 401 && current) setSession(null);
  if (Array.isArray(detail)) {
    const fields: Record<string, string> = {};
    for (const item of detail as { loc?: unknown[]; msg?: string; type?: string }[]) {
      const loc = (item.loc ?? []).filter((part) => part !== "body" && part !== "query");
      // runtime_config holds two things the form shows apart: its MCP servers and where the agent runs.
      const key =
        loc[0] === "runtime_config" && loc[1] === "runtime"
          ? "runtime_config.runtime"
          : loc.length > 0
            ? String(loc[0])
            : "_";
      fields[key] ??= key === "_" ? (item.msg ?? "Invalid input") : plainMessage(key, item);
    }
    return new ApiError(response.status, Object.values(fields).join("; ") || "Invalid input", fields);
  }
  const message = typeof detail === "string" ? detail : `${response.status} ${response.statusText || "Request failed"}`;
  return new ApiError(response.status, message);
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body === undefined ? undefined : JSON.stringify(body), "application/json");
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A body of bytes (a zip), answered with JSON. */
export async function upload<T>(method: string, path: string, body: Blob, type: string): Promise<T> {
  return (await (await send(method, path, body, type)).json()) as T;
}

/** A file's text, as the server keeps it (a skill's file). */
export async function getText(path: string): Promise<string> {
  return (await send("GET", path)).text();
}

/** A file's bytes (a call recording), for an object URL: the bearer travels in a header, never in a media URL. */
export async function getBlob(path: string): Promise<Blob> {
  return (await send("GET", path)).blob();
}

async function send(method: string, path: string, body?: BodyInit, type?: string): Promise<Response> {
  const headers: Record<string, string> = { ...authHeaders() };
  if (body !== undefined && type) headers["content-type"] = type;
  let response: Response;
  try {
    response = await fetch(`/api/v1/${path}`, { method, headers, body });
  } catch {
    throw new ApiError(0, "The server cannot be reached");
  }
  if (!response.ok) throw await failure(response);
  return response;
}

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body?: unknown) => request<T>("POST", path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  delete: (path: string) => request<void>("DELETE", path),
};

const PAGE = 200;

/**
 * Every page of a list (limit 200 each), for views that show all of it: the first page alone, then, while pages
 * come back full, four at a time.
 */
export async function getAll<T>(path: string): Promise<T[]> {
  const joiner = path.includes("?") ? "&" : "?";
  const page = (offset: number) => api.get<T[]>(`${path}${joiner}limit=${PAGE}&offset=${offset}`);
  const all = await page(0);
  if (all.length < PAGE) return all;
  for (let offset = PAGE; ; offset += 4 * PAGE) {
    const pages = await Promise.all([0, 1, 2, 3].map((index) => page(offset + index * PAGE)));
    for (const each of pages) all.push(...each);
    if (pages.some((each) => each.length < PAGE)) return all;
  }
}

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : "";
}
