// Agent tools (list_agents, ask_<agent>) through the official SDK client: the agent really runs, on a local
// OpenAI-compatible model server.
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, type TestApp } from "../helpers/app.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { connectClient, echoTool, insertApiKey, startMcpApp } from "./helpers.ts";

let model: TestModelServer;
let server: TestApp;
let apiKey: string;

beforeAll(async () => {
  model = await TestModelServer.start();
  server = await startMcpApp("sqlite", {
    tools: [echoTool],
    env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/default-model" },
  });
  const team = await createWorkspaceWithRoles(server.api);
  const created = await server.api.post(
    `workspaces/${team.workspaceId}/agents/`,
    { name: "Release Helper", instructions: "You help with releases.", model: "openai/helper-model" },
    { token: team.owner.token },
  );
  expect(created.status).toBe(201);
  apiKey = await insertApiKey(server.db, team.workspaceId, team.owner.user.id);
});
afterAll(async () => {
  await server?.close();
  await model?.close();
});

describe.each([
  ["Streamable HTTP", () => new StreamableHTTPClientTransport(new URL("/mcp", server.url), withKey())],
  ["SSE", () => new SSEClientTransport(new URL("/sse", server.url), withKey())],
])("agent tools over %s", (_name, transport) => {
  it("list_agents names the agent and its ask_ tool; ask_release_helper gets the agent's answer", async () => {
    const client = await connectClient(transport());
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "list_agents", "ask_release_helper"]));
      const listed = await client.callTool({ name: "list_agents", arguments: {} });
      expect(listed.isError).toBeFalsy();
      const agents = JSON.parse((listed.content as { text: string }[])[0]?.text ?? "null");
      expect(agents).toEqual([expect.objectContaining({ name: "Release Helper", tool: "ask_release_helper" })]);

      model.reply({ text: "The next release is Friday." });
      const answer = await client.callTool({ name: "ask_release_helper", arguments: { message: "When?" } });
      expect(answer.structuredContent).toMatchObject({
        agent: "Release Helper",
        response: "The next release is Friday.",
        session_id: expect.any(String),
      });
      const lastRequest = model.requests.at(-1)?.body;
      expect(lastRequest).toMatchObject({ model: "helper-model" });
    } finally {
      await client.close();
    }
  });
});

const withKey = () => ({ requestInit: { headers: { "X-API-Key": apiKey } } });
