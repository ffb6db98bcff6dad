// Platform tools through the official SDK client with a workspace API key: what they do lands in the database.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLATFORM_TOOL_NAMES } from "../../src/platform/tools.ts";
import { createWorkspaceWithRoles, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { connectClient, echoTool, insertApiKey, postJson, startMcpApp } from "./helpers.ts";

const structured = (result: Awaited<ReturnType<Client["callTool"]>>) => {
  expect(result.isError).toBeFalsy();
  return result.structuredContent as any;
};

describe.each(testDialects)("platform tools (%s)", (dialect) => {
  let server: TestApp;
  let workspaceId: string;
  let ownerId: string;
  let apiKey: string;
  let otherKey: string;

  beforeAll(async () => {
    server = await startMcpApp(dialect, { tools: [echoTool] });
    const team = await createWorkspaceWithRoles(server.api);
    workspaceId = team.workspaceId;
    ownerId = team.owner.user.id;
    apiKey = await insertApiKey(server.db, workspaceId, ownerId);
    const auth = { token: team.owner.token };
    await server.api.post(`workspaces/${workspaceId}/projects/`, { title: "Roadmap" }, auth);
    await server.api.post(`workspaces/${workspaceId}/labels`, { name: "bug" }, auth);
    const other = await server.api.post("workspaces/", { name: "Elsewhere" }, { token: team.outsider.token });
    otherKey = await insertApiKey(server.db, other.body.id, team.outsider.user.id);
  });
  afterAll(async () => server?.close());

  const clients = [
    ["Streamable HTTP", () => new StreamableHTTPClientTransport(new URL("/mcp", server.url), headers())],
    ["SSE", () => new SSEClientTransport(new URL("/sse", server.url), headers())],
  ] as const;
  const headers = () => ({ requestInit: { headers: { "X-API-Key": apiKey } } });

  it.each(clients)(
    "over %s: creates an issue that is really in the database, then reads, updates and comments on it",
    async (_name, transport) => {
      const client = await connectClient(transport());
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(["echo", ...PLATFORM_TOOL_NAMES]));

        const created = structured(
          await client.callTool({ name: "create_issue", arguments: { title: "Written by a tool", priority: "high" } }),
        );
        const row = await server.db.selectFrom("issues").selectAll().where("id", "=", created.id).executeTakeFirst();
        expect(row).toMatchObject({
          workspace_id: workspaceId,
          title: "Written by a tool",
          priority: "high",
          status: "backlog",
          creator_type: "member",
          creator_id: ownerId,
        });

        const fetched = structured(await client.callTool({ name: "get_issue", arguments: { issue_id: created.id } }));
        expect(fetched.identifier).toBe(created.identifier);

        const updated = structured(
          await client.callTool({ name: "update_issue", arguments: { issue_id: created.id, status: "in_progress" } }),
        );
        expect(updated.status).toBe("in_progress");
        const after = await server.db
          .selectFrom("issues")
          .select("status")
          .where("id", "=", created.id)
          .executeTakeFirst();
        expect(after?.status).toBe("in_progress");

        const comment = structured(
          await client.callTool({ name: "add_comment", arguments: { issue_id: created.id, content: "On it" } }),
        );
        const stored = await server.db
          .selectFrom("comments")
          .selectAll()
          .where("id", "=", comment.id)
          .executeTakeFirst();
        expect(stored).toMatchObject({ issue_id: created.id, content: "On it", author_id: ownerId });

        const listed = structured(await client.callTool({ name: "list_issues", arguments: { status: "in_progress" } }));
        expect(listed.issues.map((issue: { id: string }) => issue.id)).toContain(created.id);
        const projects = structured(await client.callTool({ name: "list_projects", arguments: {} }));
        expect(projects.projects.map((project: { title: string }) => project.title)).toEqual(["Roadmap"]);
        const labels = structured(await client.callTool({ name: "list_labels", arguments: {} }));
        expect(labels.labels.map((label: { name: string }) => label.name)).toEqual(["bug"]);
      } finally {
        await client.close();
      }
    },
  );

  it("a refusal of the service is a tool error naming the problem", async () => {
    const client = await connectClient(clients[0][1]());
    try {
      const missing = await client.callTool({
        name: "get_issue",
        arguments: { issue_id: "00000000-0000-4000-8000-000000000000" },
      });
      expect(missing).toMatchObject({ isError: true, content: [{ type: "text", text: "Issue not found" }] });
      const badStatus = await client.callTool({ name: "create_issue", arguments: { title: "x", status: "someday" } });
      expect(badStatus.isError).toBe(true);
      expect(badStatus.content).toEqual([{ type: "text", text: expect.stringMatching(/status/) }]);
    } finally {
      await client.close();
    }
  });

  it("a key of another workspace cannot see or touch this workspace's issues", async () => {
    const issue = (
      await postJson(
        server.url,
        "/mcp",
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_issue", arguments: { title: "Ours" } } },
        { "x-api-key": apiKey },
      )
    ).json().result.structuredContent;
    const fromOutside = await postJson(
      server.url,
      "/mcp",
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_issue", arguments: { issue_id: issue.id } } },
      { "x-api-key": otherKey },
    );
    expect(fromOutside.json().result).toMatchObject({ isError: true, content: [{ text: "Issue not found" }] });
  });

  it("without a key no platform tool is listed or callable", async () => {
    const list = await postJson(server.url, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(list.json().result.tools.map((tool: { name: string }) => tool.name)).toEqual(["echo"]);
    const create = await postJson(server.url, "/mcp", {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "create_issue", arguments: { title: "anonymous" } },
    });
    expect(create.json().error).toEqual({ code: -32602, message: "Invalid params" });
  });
});
