// A real server on an ephemeral port over a throwaway database, and a small HTTP client for it.
import type { FastifyInstance } from "fastify";
import { loadConfig } from "../../src/config.ts";
import { type Db, openDatabase, type SqlDialect } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer, type ServerOptions } from "../../src/server.ts";
import { createTestDatabase } from "./databases.ts";

export interface TestApp {
  url: string;
  /** The database it serves; another app may serve the same one (startAppOn). */
  databaseUrl: string;
  app: FastifyInstance;
  db: Db;
  dialect: SqlDialect;
  api: ApiClient;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<Omit<ServerOptions, "config" | "database">> {
  env?: Record<string, string>;
}

export async function startTestApp(dialect: SqlDialect, options: StartOptions = {}): Promise<TestApp> {
  const testDb = await createTestDatabase(dialect);
  const app = await startAppOn(testDb.url, dialect, options);
  return {
    ...app,
    close: async () => {
      await app.close();
      await testDb.drop();
    },
  };
}

/** One more server process on a database another app already serves (its own pool, its own listener). */
export async function startAppOn(
  databaseUrl: string,
  dialect: SqlDialect,
  options: StartOptions = {},
): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: "silent", ...options.env, DATABASE_URL: databaseUrl });
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  const { env: _env, ...serverOptions } = options;
  const app = await buildServer({ passwordRounds: 4, logger: false, ...serverOptions, config, database });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    databaseUrl,
    app,
    db: database.db,
    dialect,
    api: new ApiClient(url),
    close: async () => {
      // A connection a test's client opened and left without a request (an aborted fetch) would hold the close for
      // the keep-alive timeout: what is still connected once the server had two seconds to finish is cut.
      const stragglers = setTimeout(() => app.server.closeAllConnections(), 2_000);
      await app.close();
      clearTimeout(stragglers);
      await database.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** Sent as is instead of JSON.stringify(body). */
  raw?: string | Uint8Array;
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | Uint8Array | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers["content-type"] ??= "application/json";
    const url =
      path.startsWith("/api") || path.startsWith("/") ? `${this.baseUrl}${path}` : `${this.baseUrl}/api/v1/${path}`;
    return fetch(url, { method, headers, body: payload }).then(async (response) => {
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {}
      return { status: response.status, body: parsed as T, headers: response.headers };
    });
  }

  get = <T = any>(path: string, options?: RequestOptions) => this.request<T>("GET", path, undefined, options);
  post = <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>("POST", path, body, options);
  put = <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>("PUT", path, body, options);
  patch = <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
    this.request<T>("PATCH", path, body, options);
  delete = <T = any>(path: string, options?: RequestOptions) => this.request<T>("DELETE", path, undefined, options);
}

let userCounter = 0;

export interface TestUser {
  token: string;
  user: { id: string; name: string; email: string };
}

/** Registers a fresh user (unique email per call). Paths are relative to /api/v1/ unless they start with "/". */
export async function registerUser(api: ApiClient, name = "user"): Promise<TestUser> {
  userCounter += 1;
  const email = `${name}-${process.pid}-${userCounter}-${Date.now()}@example.com`;
  const response = await api.post("auth/register", { email, password: "correct horse battery", name });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export type WorkspaceWithRoles = Awaited<ReturnType<typeof createWorkspaceWithRoles>>;

/** A workspace owned by `owner`, plus an admin and a plain member, and an outsider who belongs to none. */
export async function createWorkspaceWithRoles(api: ApiClient) {
  const owner = await registerUser(api, "owner");
  const admin = await registerUser(api, "admin");
  const member = await registerUser(api, "member");
  const outsider = await registerUser(api, "outsider");
  const created = await api.post("workspaces/", { name: "Team" }, { token: owner.token });
  if (created.status !== 201) throw new Error(`workspace create failed: ${created.status}`);
  const workspaceId: string = created.body.id;
  await api.post(
    `workspaces/${workspaceId}/members`,
    { user_id: admin.user.id, role: "admin" },
    { token: owner.token },
  );
  await api.post(`workspaces/${workspaceId}/members`, { user_id: member.user.id }, { token: owner.token });
  return { workspaceId, owner, admin, member, outsider };
}
