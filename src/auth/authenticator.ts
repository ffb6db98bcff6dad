// Who is calling: shared by the platform API, the tool-protocol server and the agent-UI endpoint.
// Credentials: `Authorization: Bearer <JWT | API key>` or `X-API-Key: <API key>`.
import type { IncomingHttpHeaders } from "node:http";
import type { Db } from "../db/index.ts";
import type { RunnersTable } from "../db/schema.ts";
import { isId, now } from "../db/values.ts";
import { forbidden, unauthorized } from "../http/errors.ts";
import { type ApiKeyReads, apiKeyReads } from "./api-key-reads.ts";
import { hashApiKey, looksLikeApiKey } from "./api-key-secrets.ts";
import { type MemberReads, memberReads } from "./member-reads.ts";
import type { Membership, Role } from "./membership.ts";
import type { Principal } from "./principal.ts";
import { hashSecret, looksLikeRunnerToken, looksLikeTaskToken, sameSecretHash } from "./runner-credentials.ts";
import type { TokenService } from "./tokens.ts";

export const MESSAGES = {
  missingHeader: "Missing Authorization header",
  badFormat: "Invalid Authorization header format. Use: Bearer <token>",
  badToken: "Invalid or expired token",
  badApiKey: "Invalid API key",
  runnerTokenElsewhere: "A runner token works on the runner API only",
  badRunnerToken: "Invalid or revoked runner token",
  notRunnerToken: "The runner API needs a runner token (Authorization: Bearer apr_…)",
  badTaskToken: "Invalid task token, or its task has ended",
} as const;

/** A runner token's standing: which token, of which workspace. */
export interface RunnerCredential {
  tokenId: string;
  workspaceId: string;
  /** The runner the call names by its `runner_id`, read with the token (undefined: not registered, or not asked). */
  runner?: RunnersTable;
}

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

type Credential = { kind: "apiKey" | "token" | "runnerToken" | "taskToken"; value: string };

function kindOf(credential: string): Credential["kind"] {
  if (looksLikeApiKey(credential)) return "apiKey";
  if (looksLikeRunnerToken(credential)) return "runnerToken";
  return looksLikeTaskToken(credential) ? "taskToken" : "token";
}

/** The credential sent, by its header; a malformed Authorization header is a 401. */
function credentialOf(headers: IncomingHttpHeaders): Credential | undefined {
  const apiKeyHeader = headers["x-api-key"];
  if (typeof apiKeyHeader === "string" && apiKeyHeader !== "") {
    const value = apiKeyHeader.trim();
    return { kind: kindOf(value) === "token" ? "apiKey" : kindOf(value), value };
  }
  const authorization = headers.authorization;
  if (authorization === undefined || authorization === "") return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw unauthorized(MESSAGES.badFormat);
  const credential = match[1];
  return { kind: kindOf(credential), value: credential };
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
    switch (credential.kind) {
      case "apiKey":
        return this.fromApiKey(credential.value);
      case "runnerToken":
        throw unauthorized(MESSAGES.runnerTokenElsewhere);
      case "taskToken":
        return (await this.taskTokenRow(credential.value)).principal;
      case "token":
        return this.fromToken(credential.value);
    }
  }

  /** The runner API's check: a runner token that still holds, else 401 (any other credential included). */
  /**
   * A runner token's standing, and with it (one query: every runner call asks for both) the token's workspace's
   * runner whose own id is `runnerKey`.
   */
  async requireRunner(headers: IncomingHttpHeaders, runnerKey?: string): Promise<RunnerCredential> {
    const credential = credentialOf(headers);
    if (credential?.kind !== "runnerToken") throw unauthorized(MESSAGES.notRunnerToken);
    const hash = hashSecret(credential.value);
    const row = await this.db
      .selectFrom("runner_tokens")
      .leftJoin("runners", (join) =>
        join
          .onRef("runners.workspace_id", "=", "runner_tokens.workspace_id")
          .on("runners.runner_key", "=", runnerKey ?? ""),
      )
      .select(["runner_tokens.id as token_id", "runner_tokens.workspace_id as token_workspace_id", "token_hash"])
      .select([
        "runners.id",
        "runners.workspace_id",
        "runners.runner_key",
        "runners.name",
        "runners.host",
        "runners.version",
        "runners.status",
        "runners.last_seen_at",
        "runners.created_at",
      ])
      .where("token_hash", "=", hash)
      .executeTakeFirst();
    if (!row || !sameSecretHash(row.token_hash, hash)) throw unauthorized(MESSAGES.badRunnerToken);
    const { token_id, token_workspace_id, token_hash: _, ...runner } = row;
    return {
      tokenId: token_id,
      workspaceId: token_workspace_id,
      ...(runnerKey !== undefined && runner.id !== null && { runner: runner as RunnersTable }),
    };
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
    if (credential.kind === "runnerToken") throw unauthorized(MESSAGES.runnerTokenElsewhere);
    if (credential.kind === "taskToken") {
      const task = await this.taskTokenRow(credential.value);
      if (task.workspaceId !== workspaceId) throw forbidden();
      // An agent acts with a member's rights, never an admin's.
      return access(task.principal, workspaceId, "member", task.issueListVersion);
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

  /** The agent a task token acts as, while its task runs; 401 otherwise. */
  private async taskTokenRow(token: string) {
    const hash = hashSecret(token);
    const row = await this.db
      .selectFrom("tasks")
      .innerJoin("agents", "agents.id", "tasks.agent_id")
      .innerJoin("workspaces", "workspaces.id", "tasks.workspace_id")
      .select([
        "tasks.id as task_id",
        "tasks.token_hash",
        "agents.id as agent_id",
        "agents.name",
        "tasks.workspace_id",
        "workspaces.issue_list_version",
      ])
      .where("tasks.token_hash", "=", hash)
      .where("tasks.status", "=", "running")
      .executeTakeFirst();
    if (!row?.token_hash || !sameSecretHash(row.token_hash, hash)) throw unauthorized(MESSAGES.badTaskToken);
    const principal: Principal = {
      user: { id: row.agent_id, name: row.name, email: "" },
      agent: { id: row.agent_id, workspaceId: row.workspace_id, taskId: row.task_id },
    };
    return { principal, workspaceId: row.workspace_id, issueListVersion: row.issue_list_version };
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
