// Who is calling: shared by the platform API, the tool-protocol server and the agent-UI endpoint.
// Credentials: `Authorization: Bearer <JWT | API key>` or `X-API-Key: <API key>`.
import type { IncomingHttpHeaders } from "node:http";
import type { Db } from "../db/index.ts";
import { isId, now } from "../db/values.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import { type ApiKeyReads, apiKeyReads } from "./api-key-reads.ts";
import { hashApiKey, looksLikeApiKey } from "./api-key-secrets.ts";
import { type MemberReads, memberReads } from "./member-reads.ts";
import type { Membership, Role } from "./membership.ts";
import type { Principal } from "./principal.ts";
import type { TokenService } from "./tokens.ts";

export const MESSAGES = {
  missingHeader: "Missing Authorization header",
  badFormat: "Invalid Authorization header format. Use: Bearer <token>",
  badToken: "Invalid or expired token",
  badApiKey: "Invalid API key",
} as const;

const LAST_USED_PRECISION_MS = 60_000;

/** A caller inside one workspace: who, with which role, and the workspace's issue list version (see issues/list.ts). */
interface WorkspaceAccess {
  principal: Principal;
  membership: Membership;
  issueListVersion: number;
}

const access = (principal: Principal, workspaceId: string, role: Role, version: number | string): WorkspaceAccess => ({
  principal,
  membership: { workspaceId, userId: principal.user.id, role },
  issueListVersion: Number(version),
});

type Credential = { kind: "apiKey" | "token"; value: string };

/** The credential sent, by its header; a malformed Authorization header is a 401. */
function credentialOf(headers: IncomingHttpHeaders): Credential | undefined {
  const apiKeyHeader = headers["x-api-key"];
  if (typeof apiKeyHeader === "string" && apiKeyHeader !== "") return { kind: "apiKey", value: apiKeyHeader.trim() };
  const authorization = headers.authorization;
  if (authorization === undefined || authorization === "") return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw unauthorized(MESSAGES.badFormat);
  const credential = match[1];
  return { kind: looksLikeApiKey(credential) ? "apiKey" : "token", value: credential };
}

export class Authenticator {
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly members: MemberReads;
  private readonly apiKeys: ApiKeyReads;

  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
  ) {
    this.members = memberReads(db);
    this.apiKeys = apiKeyReads(db);
  }

  /** The caller, or undefined when no credential was sent; throws 401 for a credential that does not hold. */
  async authenticate(headers: IncomingHttpHeaders): Promise<Principal | undefined> {
    const credential = credentialOf(headers);
    if (!credential) return undefined;
    return credential.kind === "apiKey" ? this.fromApiKey(credential.value) : this.fromToken(credential.value);
  }

  /** Like authenticate, but a missing credential is a 401 too. */
  async require(headers: IncomingHttpHeaders): Promise<Principal> {
    const principal = await this.authenticate(headers);
    if (!principal) throw unauthorized(MESSAGES.missingHeader);
    return principal;
  }

  /**
   * `require`, and the caller's membership of one workspace with that workspace's issue list version, in one query
   * (every workspace route asks for all three). 401 as `require`; then 403 for a non-member, an unknown workspace or
   * another workspace's key.
   */
  async requireInWorkspace(headers: IncomingHttpHeaders, workspaceId: string): Promise<WorkspaceAccess> {
    const credential = credentialOf(headers);
    if (!credential) throw unauthorized(MESSAGES.missingHeader);
    // Not an id at all (e.g. a NUL byte, which PostgreSQL refuses): no workspace of which anyone is a member.
    const workspace = isId(workspaceId) ? workspaceId : undefined;
    if (credential.kind === "apiKey") {
      const key = await this.apiKeyRow(credential.value);
      if (key.workspace_id !== workspaceId) throw forbidden();
      return access(key.principal, workspaceId, key.role, key.issue_list_version);
    }
    const claims = await this.tokens.verify(credential.value);
    if (!claims) throw unauthorized(MESSAGES.badToken);
    const user = await this.members(claims.sub, workspace ?? "");
    if (!user) throw unauthorized(MESSAGES.badToken);
    if (!user.role || user.issue_list_version === null) throw forbidden();
    const principal = { user: { id: user.id, name: user.name, email: user.email } };
    return access(principal, workspaceId, user.role, user.issue_list_version);
  }

  private async fromToken(token: string): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    if (!claims) throw unauthorized(MESSAGES.badToken);
    // No workspace asked about: only the user is read.
    const user = await this.members(claims.sub, "");
    if (!user) throw unauthorized(MESSAGES.badToken);
    return { user: { id: user.id, name: user.name, email: user.email } };
  }

  private async fromApiKey(key: string): Promise<Principal> {
    return (await this.apiKeyRow(key)).principal;
  }

  /** The key's principal, role and list version in its own workspace; 401 when no key holds. */
  private async apiKeyRow(key: string) {
    const row = await this.apiKeys(hashApiKey(key));
    if (!row) throw unauthorized(MESSAGES.badApiKey);
    this.touch(row.keyId);
    const principal: Principal = {
      user: { id: row.id, name: row.name, email: row.email },
      apiKey: { id: row.keyId, workspaceId: row.workspace_id },
    };
    return { principal, workspace_id: row.workspace_id, role: row.role, issue_list_version: row.issue_list_version };
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
