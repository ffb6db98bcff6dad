// A login token chooses its workspace (X-Workspace-Id or ?workspace_id=) and then gets that workspace's tools, as an
// API key would; a workspace the user is not a member of is 403.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { call, connectClient, insertApiKey, postJson, RawSseStream, rawRequest, startMcpApp } from "./helpers.ts";

const toolNames = (body: any): string[] => body.result.tools.map((tool: { name: string }) => tool.name);
const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };

describe.each(testDialects)("a login token choosing its workspace (%s)", (dialect) => {
  let server: TestApp;
  let team: WorkspaceWithRoles;

  beforeAll(async () => {
    server = await startMcpApp(dialect);
    team = await createWorkspaceWithRoles(server.api);
  });
  afterAll(async () => server?.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("X-Workspace-Id on /mcp and ?workspace_id= on /messages/ add the workspace's tools, acting as the user", async () => {
    const byHeader = await postJson(server.url, "/mcp", list, {
      ...bearer(team.member.token),
      "x-workspace-id": team.workspaceId,
    });
    expect(byHeader.status).toBe(200);
    expect(toolNames(byHeader.json())).toEqual(expect.arrayContaining(["echo", "create_issue", "list_agents"]));

    const whoami = await postJson(
      server.url,
      `/messages/?workspace_id=${team.workspaceId}`,
      call(2, "whoami", {}),
      bearer(team.member.token),
    );
    expect(whoami.json().result.structuredContent).toEqual({
      workspaceId: team.workspaceId,
      userId: team.member.user.id,
    });

    const created = await postJson(server.url, "/mcp", call(3, "create_issue", { title: "Chosen workspace" }), {
      ...bearer(team.member.token),
      "x-workspace-id": team.workspaceId,
    });
    expect(created.json().result.isError).toBeUndefined();
    const row = await server.db
      .selectFrom("issues")
      .select(["workspace_id", "creator_id"])
      .where("title", "=", "Chosen workspace")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ workspace_id: team.workspaceId, creator_id: team.member.user.id });
  });

  it("without a choice a login token keeps to the custom tools", async () => {
    const response = await postJson(server.url, "/mcp", list, bearer(team.member.token));
    expect(toolNames(response.json()).sort()).toEqual(["echo", "explode", "whoami"]);
  });

  it("an SSE session opened with ?workspace_id= keeps the workspace for the posts that carry the same token", async () => {
    const chosen = await RawSseStream.open(
      server.url,
      bearer(team.admin.token),
      `/sse?workspace_id=${team.workspaceId}`,
    );
    try {
      const endpoint = await chosen.endpoint();
      expect(endpoint).toMatch(/^\/messages\/\?session_id=[0-9a-f]{32}$/);
      const posted = await postJson(server.url, endpoint, call(4, "whoami", {}), bearer(team.admin.token));
      expect(posted.status).toBe(202);
      expect((await chosen.reply(4)).result.structuredContent).toEqual({
        workspaceId: team.workspaceId,
        userId: team.admin.user.id,
      });
    } finally {
      chosen.close();
    }
  });

  it("a workspace the user is not a member of is 403 {detail} on every endpoint", async () => {
    const outsider = { ...bearer(team.outsider.token), "x-workspace-id": team.workspaceId };
    for (const path of ["/mcp", "/messages/"]) {
      const response = await postJson(server.url, path, list, outsider);
      expect(response.status, path).toBe(403);
      expect(response.json()).toEqual({ detail: expect.any(String) });
    }
    const sse = await rawRequest(server.url, "GET", "/sse", undefined, outsider);
    expect(sse.status).toBe(403);
    const malformed = await postJson(server.url, "/mcp", list, { ...bearer(team.member.token), "x-workspace-id": "x" });
    expect(malformed.status).toBe(403);
  });

  it("the SDK client sees the 403 as an HTTP error, and connects with a workspace it belongs to", async () => {
    const refused = new StreamableHTTPClientTransport(new URL("/mcp", server.url), {
      requestInit: { headers: { ...bearer(team.outsider.token), "X-Workspace-Id": team.workspaceId } },
    });
    await expect(connectClient(refused)).rejects.toThrow(/403|Not a member/);

    const client = await connectClient(
      new StreamableHTTPClientTransport(new URL(`/mcp?workspace_id=${team.workspaceId}`, server.url), {
        requestInit: { headers: bearer(team.member.token) },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("list_issues");
    } finally {
      await client.close();
    }
  });

  it("an API key names its own workspace: choosing another is 403; a choice without a credential is 401", async () => {
    const key = await insertApiKey(server.db, team.workspaceId, team.owner.user.id);
    const own = await postJson(server.url, "/mcp", list, { "x-api-key": key, "x-workspace-id": team.workspaceId });
    expect(own.status).toBe(200);
    const elsewhere = await server.api.post("workspaces/", { name: "Other" }, { token: team.owner.token });
    const other = await postJson(server.url, "/mcp", list, { "x-api-key": key, "x-workspace-id": elsewhere.body.id });
    expect(other.status).toBe(403);
    const anonymous = await postJson(server.url, "/mcp", list, { "x-workspace-id": team.workspaceId });
    expect(anonymous.status).toBe(401);
  });
});
