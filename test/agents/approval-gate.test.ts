// approval_required holds wherever the agent runs: in a chat (/agui) and when another agent asks it (ask_<agent>),
// where nobody can approve, a gated call is refused with a result the model can relay; the tool never runs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { testDialects } from "../helpers/databases.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "../work/helpers.ts";

const REFUSAL = /^Not run: the tool create_issue of the agent "Gated Filer" needs a person's approval/;

describe.each(testDialects)("approval_required wherever the agent runs (%s)", (dialect) => {
  let f: WorkFixture;
  let gated: { id: string };
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
    gated = await createAgent(f, {
      name: "Gated Filer",
      tools: ["create_issue", "list_projects"],
      runtime_config: { approval_required: ["create_issue"] },
    });
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  const issuesTitled = async (title: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/?q=${encodeURIComponent(title)}`, { token: f.member.token })).body;
  /** The tool results the model was sent, by call id, across every request so far. */
  const toolResults = () =>
    new Map<string, string>(
      f.model.requests.flatMap((request) =>
        request.body.messages
          .filter((message: { role: string }) => message.role === "tool")
          .map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
      ),
    );

  it("in a chat (/agui) the gated call is refused, the other tool runs, and no approval is left waiting", async () => {
    f.model.reply({
      toolCalls: [
        { id: "call_chat_create", name: "create_issue", arguments: { title: "Chat-filed issue" } },
        { id: "call_chat_list", name: "list_projects", arguments: {} },
      ],
    });
    f.model.reply({ text: "I may not file it from here." });
    const response = await postAgui(
      f.t.url,
      seedRequest("gate-chat", "gate-chat-run", [{ id: "m1", role: "user", content: "File an issue" }]),
      { path: `/agui?agent=${gated.id}`, headers: { authorization: `Bearer ${f.member.token}` } },
    );
    expect(response.status).toBe(200);
    expect(response.types.at(-1)).toBe("run_finished");
    const results = toolResults();
    expect(results.get("call_chat_create")).toMatch(REFUSAL);
    expect(results.get("call_chat_create")).toMatch(/Assign the agent an issue to run it/);
    expect(JSON.parse(results.get("call_chat_list") ?? "null")).toEqual({ projects: [] });
    expect(await issuesTitled("Chat-filed issue")).toEqual([]);
    const approvals = (await f.api.get(`workspaces/${f.ws}/approvals`, { token: f.member.token })).body;
    expect(approvals).toEqual([]);
  });

  it("asked by another agent working a task (ask_<agent>), the gated call is refused and the asker hears why", async () => {
    const asker = await createAgent(f, { name: "Asker", tools: ["ask_gated_filer"] });
    f.model.reply({
      toolCalls: [{ id: "call_ask", name: "ask_gated_filer", arguments: { message: "Please file 'Asked issue'" } }],
    });
    f.model.reply({
      toolCalls: [{ id: "call_asked_create", name: "create_issue", arguments: { title: "Asked issue" } }],
    });
    f.model.reply({ text: "I was not allowed to file it." });
    f.model.reply({ text: "The filer could not file it without approval." });
    const issue = await createIssue(f, { title: "Delegate", assignee_type: "agent", assignee_id: asker.id });
    const task = await taskReaching(f, issue.id);
    expect(task.status).toBe("succeeded");

    const results = toolResults();
    expect(results.get("call_asked_create")).toMatch(REFUSAL);
    expect(JSON.parse(results.get("call_ask") ?? "null")).toMatchObject({
      agent: "Gated Filer",
      response: "I was not allowed to file it.",
    });
    expect(await issuesTitled("Asked issue")).toEqual([]);
    // The asker's own task never waited: the gated agent's approval belongs to its own task runs.
    const approvals = (await f.api.get(`workspaces/${f.ws}/approvals`, { token: f.member.token })).body;
    expect(approvals).toEqual([]);
  });
});
