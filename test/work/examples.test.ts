// The example agents a user can copy (examples/agents/*.json, examples/mcp-server.ts) do what
// docs/agents-at-work.md says.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue, startWorkFixture, taskReaching, toolNamesOf, type WorkFixture } from "./helpers.ts";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
const example = (file: string) => JSON.parse(readFileSync(`${examples}agents/${file}`, "utf8"));

describe.each(testDialects)("example agents (%s)", (dialect) => {
  let f: WorkFixture;
  let notesServer: ChildProcess;
  let notesUrl: string;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: { MCP_CONNECT_TIMEOUT_MS: "15000" } });
    notesServer = spawn(process.execPath, ["--import", "tsx", `${examples}mcp-server.ts`, "--port", "0"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    notesServer.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    notesUrl = await eventually(
      () => /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1],
      "the example MCP server",
      20_000,
    );
  });
  afterAll(async () => {
    notesServer.kill();
    await f.close();
  });
  beforeEach(() => f.model.reset());

  const post = (path: string, body: unknown, token = f.admin.token) =>
    f.api.post(`workspaces/${f.ws}/${path}`, body, { token });

  it("the triage agent labels and prioritises an issue, then hands it back (its run goes on)", async () => {
    const triage = await post("agents/", { ...example("triage.json"), model: "openai/test-model" });
    expect(triage.status).toBe(201);
    const labels = new Map<string, string>();
    for (const name of ["bug", "frontend", "docs"]) labels.set(name, (await post("labels", { name })).body.id);
    const issue = await createIssue(f, {
      title: "Login button does nothing on Safari",
      assignee_type: "agent",
      assignee_id: triage.body.id,
    });
    f.model.reply(
      { toolCalls: [{ id: "l", name: "list_labels", arguments: {} }] },
      {
        toolCalls: [
          { id: "a", name: "label_issue", arguments: { issue_id: issue.id, label_id: labels.get("bug") } },
          { id: "b", name: "label_issue", arguments: { issue_id: issue.id, label_id: labels.get("frontend") } },
          {
            id: "c",
            name: "update_issue",
            arguments: { issue_id: issue.id, priority: "high", status: "todo", assignee_type: null, assignee_id: null },
          },
        ],
      },
      { text: "bug, frontend; high: login is a core feature." },
    );
    const task = await taskReaching(f, issue.id);
    expect(task.status).toBe("succeeded");
    expect(f.model.requests[0]?.body.messages[0].content).toBe(example("triage.json").instructions);
    const after = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token: f.member.token })).body;
    expect(after).toMatchObject({ priority: "high", status: "todo", assignee_type: null, assignee_id: null });
    const onIssue = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/labels`, { token: f.member.token })).body;
    expect(onIssue.map((label: { name: string }) => label.name)).toEqual(["bug", "frontend"]);
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments.at(-1)).toMatchObject({
      author_type: "agent",
      content: "bug, frontend; high: login is a core feature.",
    });
  });

  it("the release-notes agent uses the example MCP server, over Streamable HTTP and over stdio", async () => {
    const config = example("release-notes.json");
    const servers = [
      { name: "notes", url: notesUrl },
      { name: "notes", command: process.execPath, args: ["--import", "tsx", `${examples}mcp-server.ts`] },
    ];
    for (const [index, server] of servers.entries()) {
      const agent = await post("agents/", {
        ...config,
        name: `Release Notes ${index}`,
        model: "openai/test-model",
        runtime_config: { mcp_servers: [server] },
      });
      expect(agent.status).toBe(201);
      f.model.reset();
      f.model.reply(
        { toolCalls: [{ id: "s", name: "notes__search_notes", arguments: { query: "safari" } }] },
        { text: "The Safari login fix shipped in 2.3.0." },
      );
      const issue = await createIssue(f, {
        title: "When was the Safari login fixed?",
        assignee_type: "agent",
        assignee_id: agent.body.id,
      });
      expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
      expect(toolNamesOf(f.model.requests[0]?.body)).toEqual(
        expect.arrayContaining(["notes__list_releases", "notes__search_notes"]),
      );
      const result = f.model.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
      expect(result.content).toBe("2.3.0: Dark mode. Faster issue search. Fixed: login on Safari did nothing.");
    }
  });
});
