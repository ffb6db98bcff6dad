// An agent's MCP server credentials (an HTTP server's headers, a stdio server's env) are write-only, like a webhook's
// secret: stored for the runs, named in the API, never shown again to anyone, kept when a client sends the server back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceWithRoles, startTestApp, type TestApp, type WorkspaceWithRoles } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

const HEADER_SECRET = "Bearer header-s3cret";
const ENV_SECRET = "env-s3cret";

const servers = [
  { name: "files", url: "https://mcp.example/mcp", headers: { Authorization: HEADER_SECRET, "X-Team": "blue-team" } },
  { name: "local", command: "node", args: ["server.js"], env: { API_TOKEN: ENV_SECRET } },
];

describe.each(testDialects)("agents' MCP server credentials (%s)", (dialect) => {
  let t: TestApp;
  let ws: WorkspaceWithRoles;
  const agents = () => `workspaces/${ws.workspaceId}/agents/`;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    ws = await createWorkspaceWithRoles(t.api);
  });
  afterAll(() => t.close());

  /** What the database holds for the agent's MCP servers: what its runs will use. */
  const storedServers = async (agentId: string) => {
    const row = await t.db.selectFrom("agents").select("runtime_config").where("id", "=", agentId).executeTakeFirst();
    return JSON.parse(row!.runtime_config).mcp_servers;
  };

  /** Every way a member, an admin or the owner can read an agent, its activity and its events, as raw text. */
  const everythingReadable = async (agentId: string) => {
    const texts: string[] = [];
    for (const { token } of [ws.member, ws.admin, ws.owner]) {
      for (const path of [
        agents(),
        `${agents()}${agentId}`,
        `workspaces/${ws.workspaceId}/activity?limit=200`,
        `workspaces/${ws.workspaceId}/events?limit=200`,
      ]) {
        const response = await t.api.get(path, { token });
        expect(response.status, path).toBe(200);
        texts.push(JSON.stringify(response.body));
      }
    }
    return texts.join("\n");
  };

  it("headers and env are stored for the runs, shown to nobody (admins and owners included), named instead", async () => {
    const created = await t.api.post(
      agents(),
      { name: "Keeper", runtime_config: { mcp_servers: servers, approval_required: ["*"] } },
      { token: ws.admin.token },
    );
    expect(created.status).toBe(201);
    const shown = {
      mcp_servers: [
        { name: "files", url: "https://mcp.example/mcp", headers_set: ["Authorization", "X-Team"] },
        { name: "local", command: "node", args: ["server.js"], env_set: ["API_TOKEN"] },
      ],
      approval_required: ["*"],
    };
    expect(created.body.runtime_config).toEqual(shown);
    const fetched = await t.api.get(`${agents()}${created.body.id}`, { token: ws.owner.token });
    expect(fetched.body.runtime_config).toEqual(shown);
    expect(await storedServers(created.body.id)).toEqual(servers);

    // A change to the servers, with the old and new settings in its activity entry, shows no secret either.
    const patched = await t.api.patch(
      `${agents()}${created.body.id}`,
      { runtime_config: { mcp_servers: [{ ...servers[0], headers: { Authorization: "Bearer rotated-s3cret" } }] } },
      { token: ws.admin.token },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.runtime_config).toEqual({
      mcp_servers: [{ name: "files", url: "https://mcp.example/mcp", headers_set: ["Authorization"] }],
    });
    const readable = await everythingReadable(created.body.id);
    expect(readable).toContain("headers_set");
    for (const secret of [HEADER_SECRET, "blue-team", ENV_SECRET, "rotated-s3cret"]) {
      expect(readable).not.toContain(secret);
    }
  });

  it("sending an agent back as it was shown keeps the stored headers and env; null or {} removes them", async () => {
    const created = await t.api.post(
      agents(),
      { name: "Echo", runtime_config: { mcp_servers: servers } },
      { token: ws.admin.token },
    );
    const path = `${agents()}${created.body.id}`;
    // What a client (the dashboard) does: read the agent, change something, send its runtime_config back.
    const shown = (await t.api.get(path, { token: ws.admin.token })).body;
    const echoed = await t.api.patch(
      path,
      { description: "Edited", runtime_config: { ...shown.runtime_config, temperature: 0.1 } },
      { token: ws.admin.token },
    );
    expect(echoed.status).toBe(200);
    expect(echoed.body.runtime_config).toEqual({ ...shown.runtime_config, temperature: 0.1 });
    expect(await storedServers(created.body.id)).toEqual(servers);

    // Another path on the same origin, or the stdio server left as it is: still the same receivers.
    const [files, local] = shown.runtime_config.mcp_servers;
    const samePlace = await t.api.patch(
      path,
      { runtime_config: { mcp_servers: [{ ...files, url: "https://mcp.example/v2/mcp" }, local] } },
      { token: ws.admin.token },
    );
    expect(samePlace.status).toBe(200);
    expect(await storedServers(created.body.id)).toEqual([
      { ...servers[0], url: "https://mcp.example/v2/mcp" },
      servers[1],
    ]);

    const cleared = await t.api.patch(
      path,
      {
        runtime_config: {
          mcp_servers: [
            { name: "files", url: "https://mcp.example/v2/mcp", headers: null },
            { name: "local", command: "node", args: ["server.js"], env: {} },
          ],
        },
      },
      { token: ws.admin.token },
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body.runtime_config.mcp_servers).toEqual([
      { name: "files", url: "https://mcp.example/v2/mcp" },
      { name: "local", command: "node", args: ["server.js"] },
    ]);
    expect(await storedServers(created.body.id)).toEqual([
      { name: "files", url: "https://mcp.example/v2/mcp" },
      { name: "local", command: "node", args: ["server.js"] },
    ]);
  });

  it("stored credentials never follow a server to a new origin or command unless sent again (422, nothing changes)", async () => {
    const created = await t.api.post(
      agents(),
      { name: "Mover", runtime_config: { mcp_servers: servers } },
      { token: ws.admin.token },
    );
    const path = `${agents()}${created.body.id}`;
    const [files, local] = (await t.api.get(path, { token: ws.admin.token })).body.runtime_config.mcp_servers;
    const refusals: [unknown[], string[], string][] = [
      [
        [{ ...files, url: "https://attacker.example/mcp" }, local],
        ["body", "runtime_config", "mcp_servers", "0", "headers"],
        'MCP server "files" now points at another origin: send its headers again, or headers: null to drop the stored ones',
      ],
      [
        [{ ...files, url: "https://mcp.example:8443/mcp" }, local],
        ["body", "runtime_config", "mcp_servers", "0", "headers"],
        'MCP server "files" now points at another origin: send its headers again, or headers: null to drop the stored ones',
      ],
      [
        [files, { ...local, args: ["-e", "console.log(process.env.API_TOKEN)"] }],
        ["body", "runtime_config", "mcp_servers", "1", "env"],
        'MCP server "local" now runs another command or other args: send its env again, or env: null to drop the stored ones',
      ],
      [
        [files, { ...local, command: "sh" }],
        ["body", "runtime_config", "mcp_servers", "1", "env"],
        'MCP server "local" now runs another command or other args: send its env again, or env: null to drop the stored ones',
      ],
    ];
    for (const [mcpServers, loc, msg] of refusals) {
      const response = await t.api.patch(
        path,
        { runtime_config: { mcp_servers: mcpServers } },
        { token: ws.admin.token },
      );
      expect(response.status, msg).toBe(422);
      expect(response.body.detail).toEqual([{ type: "value_error", loc, msg }]);
      expect(await storedServers(created.body.id)).toEqual(servers);
    }

    // Sent again with the move, they go along; a server renamed is a new server, with nothing stored.
    const moved = await t.api.patch(
      path,
      {
        runtime_config: {
          mcp_servers: [
            { ...files, url: "https://elsewhere.example/mcp", headers: { Authorization: "Bearer new" } },
            { name: "renamed", command: "node", args: ["server.js"] },
          ],
        },
      },
      { token: ws.admin.token },
    );
    expect(moved.status).toBe(200);
    expect(await storedServers(created.body.id)).toEqual([
      { name: "files", url: "https://elsewhere.example/mcp", headers: { Authorization: "Bearer new" } },
      { name: "renamed", command: "node", args: ["server.js"] },
    ]);
  });

  it("an agent's owner who is no admin can edit it without touching the admin's stdio server or its env", async () => {
    const created = await t.api.post(
      agents(),
      {
        name: "Shared",
        owner_type: "member",
        owner_id: ws.member.user.id,
        runtime_config: { mcp_servers: [servers[1]] },
      },
      { token: ws.admin.token },
    );
    expect(created.status).toBe(201);
    const path = `${agents()}${created.body.id}`;
    const shown = (await t.api.get(path, { token: ws.member.token })).body;
    const edited = await t.api.patch(
      path,
      { instructions: "Be brief.", runtime_config: shown.runtime_config },
      { token: ws.member.token },
    );
    expect(edited.status).toBe(200);
    expect(await storedServers(created.body.id)).toEqual([servers[1]]);
    // Dropping the env is a change to the command the server runs: only admins make those.
    const dropped = await t.api.patch(
      path,
      { runtime_config: { mcp_servers: [{ ...shown.runtime_config.mcp_servers[0], env: null }] } },
      { token: ws.member.token },
    );
    expect(dropped.status).toBe(403);
    expect(await storedServers(created.body.id)).toEqual([servers[1]]);
  });
});
