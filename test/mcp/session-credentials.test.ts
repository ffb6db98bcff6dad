// Attacks on a legacy SSE session: every message posted to it must carry a credential of the principal that opened
// it, and the session ends when that credential stops holding (key revoked, member removed).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { call, postJson, RawSseStream, startMcpApp } from "./helpers.ts";

describe.each(testDialects)("a tool-protocol session and its credential (%s)", (dialect) => {
  let server: TestApp;
  let team: WorkspaceWithRoles;

  beforeAll(async () => {
    server = await startMcpApp(dialect);
    team = await createWorkspaceWithRoles(server.api);
  });
  afterAll(async () => server?.close());

  async function createKey(token: string, workspaceId = team.workspaceId): Promise<{ id: string; key: string }> {
    const response = await server.api.post(`workspaces/${workspaceId}/api-keys`, { name: "mcp" }, { token });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  const issueTitles = async (workspaceId = team.workspaceId): Promise<string[]> =>
    (await server.db.selectFrom("issues").select("title").where("workspace_id", "=", workspaceId).execute()).map(
      (row) => row.title,
    );

  const createIssueCall = (id: number, title: string) => call(id, "create_issue", { title });

  /** Waits until the server has ended the stream. */
  function streamEnded(stream: RawSseStream): Promise<boolean> {
    return eventually(() => stream.ended, "the server to end the stream", 10_000);
  }

  it("a post without a credential, with a garbage key or with another user's key runs nothing as the session's owner", async () => {
    const { key } = await createKey(team.owner.token);
    const outsiderWorkspace = await server.api.post(
      "workspaces/",
      { name: "Elsewhere" },
      { token: team.outsider.token },
    );
    const otherKey = await createKey(team.outsider.token, outsiderWorkspace.body.id);
    const memberKey = await createKey(team.admin.token);
    const stream = await RawSseStream.open(server.url, { "x-api-key": key });
    try {
      const endpoint = await stream.endpoint();
      const attempts: [Record<string, string>, number][] = [
        [{}, 401],
        [{ "x-api-key": "ap_garbage" }, 401],
        [{ authorization: "Bearer ap_garbage" }, 401],
        [{ authorization: "Bearer not.a.jwt" }, 401],
        [{ "x-api-key": otherKey.key }, 403],
        [{ "x-api-key": memberKey.key }, 403],
        [{ authorization: `Bearer ${team.owner.token}` }, 403],
      ];
      for (const [index, [headers, status]] of attempts.entries()) {
        const response = await postJson(server.url, endpoint, createIssueCall(index, `attack ${index}`), headers);
        expect(response.status, JSON.stringify(headers)).toBe(status);
        expect(response.json().detail).toEqual(expect.any(String));
      }
      expect(await issueTitles()).not.toContain(expect.stringMatching(/^attack/));
      expect(stream.messages()).toEqual([]);

      // The owner's own posts still work: the attempts did not end the session.
      const own = await postJson(server.url, endpoint, createIssueCall(99, "by the owner"), { "x-api-key": key });
      expect(own.status).toBe(202);
      expect((await stream.reply(99)).result.isError).toBeUndefined();
      expect(await issueTitles()).toContain("by the owner");
    } finally {
      stream.close();
    }
  });

  it("a key revoked after the session opened: the next post is 401, nothing is created, and the session ends", async () => {
    const { id, key } = await createKey(team.owner.token);
    const stream = await RawSseStream.open(server.url, { "x-api-key": key });
    try {
      const endpoint = await stream.endpoint();
      expect(
        (await postJson(server.url, endpoint, createIssueCall(1, "before revoking"), { "x-api-key": key })).status,
      ).toBe(202);
      await stream.reply(1);

      const revoked = await server.api.delete(`workspaces/${team.workspaceId}/api-keys/${id}`, {
        token: team.owner.token,
      });
      expect(revoked.status).toBe(204);
      const after = await postJson(server.url, endpoint, createIssueCall(2, "after revoking"), { "x-api-key": key });
      expect(after.status).toBe(401);
      expect(after.json()).toEqual({ detail: "Invalid API key" });
      expect(await streamEnded(stream)).toBe(true);
      expect(await issueTitles()).toContain("before revoking");
      expect(await issueTitles()).not.toContain("after revoking");
      // The session is gone for everyone.
      expect((await postJson(server.url, endpoint, createIssueCall(3, "later"))).status).toBe(404);
    } finally {
      stream.close();
    }
  });

  it("a key whose creator is removed from the workspace: 401, the session ends, nothing is created", async () => {
    const member = await (async () => {
      const fresh = await createWorkspaceWithRoles(server.api);
      return { team: fresh, key: await createKey(fresh.admin.token, fresh.workspaceId) };
    })();
    const stream = await RawSseStream.open(server.url, { "x-api-key": member.key.key });
    try {
      const endpoint = await stream.endpoint();
      const removed = await server.api.delete(
        `workspaces/${member.team.workspaceId}/members/${member.team.admin.user.id}`,
        { token: member.team.owner.token },
      );
      expect(removed.status).toBe(204);
      const after = await postJson(server.url, endpoint, createIssueCall(1, "after removal"), {
        "x-api-key": member.key.key,
      });
      expect(after.status).toBe(401);
      expect(await streamEnded(stream)).toBe(true);
      expect(await issueTitles(member.team.workspaceId)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it("a login-token session in a chosen workspace: removal from it is 403 and ends the session", async () => {
    const fresh = await createWorkspaceWithRoles(server.api);
    const headers = { authorization: `Bearer ${fresh.member.token}`, "x-workspace-id": fresh.workspaceId };
    const stream = await RawSseStream.open(server.url, headers);
    try {
      const endpoint = await stream.endpoint();
      expect((await postJson(server.url, endpoint, createIssueCall(1, "as a member"), headers)).status).toBe(202);
      expect((await stream.reply(1)).result.structuredContent.title).toBe("as a member");

      const removed = await server.api.delete(`workspaces/${fresh.workspaceId}/members/${fresh.member.user.id}`, {
        token: fresh.owner.token,
      });
      expect(removed.status).toBe(204);
      const after = await postJson(server.url, endpoint, createIssueCall(2, "after removal"), headers);
      expect(after.status).toBe(403);
      expect(await streamEnded(stream)).toBe(true);
      expect(await issueTitles(fresh.workspaceId)).toEqual(["as a member"]);
    } finally {
      stream.close();
    }
  });

  it("the SDK client: a call after the key is revoked fails with 401, and reconnecting the ended stream is refused", async () => {
    const { id, key } = await createKey(team.owner.token);
    const client = new Client({ name: "revoked", version: "1.0.0" });
    const errors: unknown[] = [];
    await client.connect(
      new SSEClientTransport(new URL("/sse", server.url), { requestInit: { headers: { "X-API-Key": key } } }),
    );
    client.onerror = (error) => errors.push(error);
    try {
      const created = await client.callTool({ name: "create_issue", arguments: { title: "through the SDK" } });
      expect(created.isError).toBeUndefined();
      await server.api.delete(`workspaces/${team.workspaceId}/api-keys/${id}`, { token: team.owner.token });
      await expect(
        client.callTool({ name: "create_issue", arguments: { title: "through the SDK, revoked" } }),
      ).rejects.toThrow(/Invalid API key/);
      // The server ended the stream; the client's event source reconnects with the dead key and is told 401.
      const refused = () => errors.some((error) => (error as { code?: number }).code === 401);
      await eventually(refused, "the reconnection to be refused with 401", 10_000);
      expect(await issueTitles()).not.toContain("through the SDK, revoked");
    } finally {
      await client.close();
    }
  });

  it("an anonymous session (dev) takes anonymous posts, and refuses a credential it was not opened with", async () => {
    const { key } = await createKey(team.owner.token);
    const stream = await RawSseStream.open(server.url);
    try {
      const endpoint = await stream.endpoint();
      expect((await postJson(server.url, endpoint, call(1, "echo", { text: "hi" }))).status).toBe(202);
      expect((await stream.reply(1)).result.structuredContent).toEqual({ echoed: "hi" });
      const withKey = await postJson(server.url, endpoint, createIssueCall(2, "escalated"), { "x-api-key": key });
      expect(withKey.status).toBe(403);
      expect(
        (await postJson(server.url, endpoint, call(3, "echo", { text: "x" }), { "x-api-key": "ap_bad" })).status,
      ).toBe(401);
      expect(await issueTitles()).not.toContain("escalated");
    } finally {
      stream.close();
    }
  });
});
