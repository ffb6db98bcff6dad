// Who is calling: shared by the platform API, the tool-protocol server and the agent-UI endpoint.
// Credentials: `Authorization: Bearer <JWT | API key>` or `X-API-Key: <API key>`.
import type { IncomingHttpHeaders } from "node:http";
import type { Db } from "../db/index.ts";
import { now } from "../db/values.ts";
import { unauthorized } from "../http/errors.ts";
import { hashApiKey, looksLikeApiKey } from "./api-key-secrets.ts";
import type { TokenService } from "./tokens.ts";

export interface PrincipalUser {
  id: string;
  name: string;
  email: string;
}

export interface Principal {
  user: PrincipalUser;
  /** Set when the caller used a workspace API key: it acts as the key's creator, inside that workspace only. */
  apiKey?: { id: string; workspaceId: string };
}

export const MESSAGES = {
  missingHeader: "Missing Authorization header",
  badFormat: "Invalid Authorization header format. Use: Bearer <token>",
  badToken: "Invalid or expired token",
  badApiKey: "Invalid API key",
} as const;

const LAST_USED_PRECISION_MS = 60_000;

export class Authenticator {
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
  ) {}

  /** The caller, or undefined when no credential was sent; throws 401 for a credential that does not hold. */
  async authenticate(headers: IncomingHttpHeaders): Promise<Principal | undefined> {
    const apiKeyHeader = headers["x-api-key"];
    if (typeof apiKeyHeader === "string" && apiKeyHeader !== "") return this.fromApiKey(apiKeyHeader.trim());
    const authorization = headers.authorization;
    if (authorization === undefined || authorization === "") return undefined;
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw unauthorized(MESSAGES.badFormat);
    const credential = match[1];
    return looksLikeApiKey(credential) ? this.fromApiKey(credential) : this.fromToken(credential);
  }

  /** Like authenticate, but a missing credential is a 401 too. */
  async require(headers: IncomingHttpHeaders): Promise<Principal> {
    const principal = await this.authenticate(headers);
    if (!principal) throw unauthorized(MESSAGES.missingHeader);
    return principal;
  }

  private async fromToken(token: string): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    if (!claims) throw unauthorized(MESSAGES.badToken);
    const user = await this.db
      .selectFrom("users")
      .select(["id", "name", "email"])
      .where("id", "=", claims.sub)
      .executeTakeFirst();
    if (!user) throw unauthorized(MESSAGES.badToken);
    return { user };
  }

  private async fromApiKey(key: string): Promise<Principal> {
    const row = await this.db
      .selectFrom("api_keys")
      .innerJoin("users", "users.id", "api_keys.created_by")
      // A key acts as its creator: once the creator has left the workspace, the key opens nothing.
      .innerJoin("members", (join) =>
        join.onRef("members.workspace_id", "=", "api_keys.workspace_id").onRef("members.user_id", "=", "users.id"),
      )
      .select(["api_keys.id as keyId", "api_keys.workspace_id", "users.id", "users.name", "users.email"])
      .where("api_keys.key_hash", "=", hashApiKey(key))
      .executeTakeFirst();
    if (!row) throw unauthorized(MESSAGES.badApiKey);
    this.touch(row.keyId);
    return {
      user: { id: row.id, name: row.name, email: row.email },
      apiKey: { id: row.keyId, workspaceId: row.workspace_id },
    };
  }

  /** Records last use at minute precision, off the request's path: one write per key per minute at most. */
  private touch(keyId: string): void {
    const at = Date.now();
    if ((this.lastUsedWrites.get(keyId) ?? 0) > at - LAST_USED_PRECISION_MS) return;
    this.lastUsedWrites.set(keyId, at);
    this.db
      .updateTable("api_keys")
      .set({ last_used_at: now() })
      .where("id", "=", keyId)
      .execute()
      .catch(() => this.lastUsedWrites.delete(keyId));
  }
}
