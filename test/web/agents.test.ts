// Agents in a real browser against a real server and a model double: an agent created from the form, a chat with
// it over /agui (thread kept, tool calls shown), an issue assigned to it whose run streams live into the issue page
// and ends in the agent's comment without a reload, and a tool call approved from the page.
import { describe, expect, it } from "vitest";
import { useBrowserFixture } from "../helpers/browser-fixture.ts";
import { testDialects } from "../helpers/databases.ts";
import { needs } from "../helpers/system-tools.ts";

describe.each(testDialects)("agents in the browser (%s)", needs("chromium"), (dialect) => {
  const f = useBrowserFixture(dialect);
  let agentId: string;

  const newIssue = async (title: string) =>
    (await f.api.post(`workspaces/${f.ws}/issues/`, { title, description: "Details in **bold**." }, { token: f.token }))
      .body;

  it("creates an agent from the New agent form", async () => {
    await f.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await f.page.getByRole("button", { name: "New agent" }).click();
    const dialog = f.page.getByRole("dialog", { name: "New agent" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Helper");
    await dialog.getByRole("textbox", { name: "Model" }).fill("openai/test-model");
    await dialog.getByRole("textbox", { name: "Instructions" }).fill("Be brief.");
    await dialog.getByRole("button", { name: "Create agent" }).click();
    await f.page.getByRole("heading", { name: "Helper", level: 1 }).waitFor();
    const [agent] = (await f.api.get(`workspaces/${f.ws}/agents/`, { token: f.token })).body;
    expect([agent.name, agent.model, agent.instructions]).toEqual(["Helper", "openai/test-model", "Be brief."]);
    agentId = agent.id;
  });

  it("chats with the agent over /agui: replies stream in, tool calls show, the thread is kept", async () => {
    f.model.reset();
    f.model.reply(
      { text: "Let me look.", toolCalls: [{ id: "call_labels", name: "list_labels", arguments: {} }] },
      { text: "There are no labels yet.", chunkDelayMs: 20 },
      { text: "You asked about **labels**." },
    );
    // The chat reaches workspace tools only through the agent's own tools list: give it list_labels.
    await f.api.patch(`workspaces/${f.ws}/agents/${agentId}`, { tools: ["list_labels"] }, { token: f.token });
    const message = f.page.getByRole("textbox", { name: "Message" });
    await message.fill("Which labels exist?");
    await f.page.getByRole("button", { name: "Send" }).click();
    const transcript = f.page.getByRole("list", { name: "Transcript" });
    await transcript.getByText("There are no labels yet.").waitFor();
    // The tool call and its result fold away; opened, the result is the tool's JSON, pretty-printed.
    const result = transcript.locator("details", { hasText: "Result of list_labels" });
    await transcript.locator("summary", { hasText: "Called list_labels" }).waitFor();
    expect(await result.locator("pre").isVisible()).toBe(false);
    await result.locator("summary").click();
    const shown = await result.locator("pre").textContent();
    expect(shown).toBe(JSON.stringify(JSON.parse(shown!), null, 2));
    await message.fill("What did I ask?");
    await f.page.getByRole("button", { name: "Send" }).click();
    // The agent's words are Markdown, rendered.
    await transcript.getByText("labels", { exact: true }).waitFor();
    expect(await transcript.getByText("labels", { exact: true }).evaluate((node) => node.tagName)).toBe("STRONG");
    const lastRequest = f.model.requests.at(-1)!.body;
    const contents = lastRequest.messages.map((each: any) => each.content);
    expect(contents).toContain("Which labels exist?");
    expect(contents).toContain("What did I ask?");
  });

  it("an issue assigned to the agent streams its run live and shows the agent's comment without a reload", async () => {
    f.model.reset();
    // Slow enough (about 2 s) that the first words are on screen well before the run ends.
    f.model.reply({ text: "I checked the page and fixed the typo in the heading.", chunkDelayMs: 200 });
    const issue = await newIssue("Typo on the landing page");
    await f.page.goto(`${f.t.url}/w/${f.ws}/issues/${issue.id}`);
    await f.page.getByRole("heading", { name: "Typo on the landing page" }).waitFor();
    expect(await f.page.getByText("bold", { exact: true }).evaluate((node) => node.tagName)).toBe("STRONG");
    await f.page.getByRole("combobox", { name: "Assignee" }).selectOption({ label: "Helper (agent)" });
    const task = f.page.getByRole("article", { name: "Task of Helper" });
    await task.getByText(/I checked/).waitFor();
    const comments = f.page.getByRole("region", { name: "Comments" });
    // Live: the text arrives while the run is still going, before the agent's comment exists.
    expect(await task.getByText(/in the heading/).count()).toBe(0);
    expect(await comments.getByText(/I checked the page/).count()).toBe(0);
    await task.getByText(/fixed the typo in the heading/).waitFor();
    await comments.getByText("I checked the page and fixed the typo in the heading.").waitFor();
    await task.getByText("Succeeded", { exact: true }).waitFor();
    expect(await task.getByRole("button", { name: "Cancel task" }).count()).toBe(0);
    await f.page.getByRole("combobox", { name: "Status" }).selectOption({ label: "Done" });
    await expect
      .poll(async () => (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token: f.token })).body.status)
      .toBe("done");
  });

  it("a task can be cancelled from the issue page while it runs", async () => {
    f.model.reset();
    f.model.reply({ stall: true, text: "Working on it" });
    const issue = await newIssue("A long job");
    await f.page.goto(`${f.t.url}/w/${f.ws}/issues/${issue.id}`);
    await f.page.getByRole("combobox", { name: "Assignee" }).selectOption({ label: "Helper (agent)" });
    const task = f.page.getByRole("article", { name: "Task of Helper" });
    await task.getByText("Working on it").waitFor();
    await task.getByRole("button", { name: "Cancel task" }).click();
    await task.getByText("Cancelled", { exact: true }).waitFor();
    const [stored] = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/tasks`, { token: f.token })).body;
    expect(stored.status).toBe("cancelled");
  });

  it("a waiting tool call shows the tool and its arguments; Approve runs it and the run goes on", async () => {
    await f.api.patch(
      `workspaces/${f.ws}/agents/${agentId}`,
      { runtime_config: { approval_required: ["create_issue"] } },
      { token: f.token },
    );
    f.model.reset();
    f.model.reply(
      {
        text: "I will file a follow-up.",
        toolCalls: [{ id: "call_file", name: "create_issue", arguments: { title: "Follow-up from Helper" } }],
      },
      { text: "Filed the follow-up." },
    );
    const issue = await newIssue("Needs a follow-up");
    await f.page.goto(`${f.t.url}/w/${f.ws}/issues/${issue.id}`);
    await f.page.getByRole("combobox", { name: "Assignee" }).selectOption({ label: "Helper (agent)" });
    const approval = f.page.getByRole("group", { name: "Approval for create_issue" });
    await approval.getByText("Follow-up from Helper").waitFor();
    await approval.getByRole("button", { name: "Approve" }).click();
    await f.page.getByRole("region", { name: "Comments" }).getByText("Filed the follow-up.").waitFor();
    const found = (await f.api.get(`workspaces/${f.ws}/issues/?q=Follow-up%20from%20Helper`, { token: f.token })).body;
    expect(found.map((each: any) => each.title)).toEqual(["Follow-up from Helper"]);
    const [decided] = (await f.api.get(`workspaces/${f.ws}/approvals`, { token: f.token })).body;
    expect(decided.status).toBe("approved");
  });

  it("the Approvals inbox lists a pending call and decides it (Deny)", async () => {
    f.model.reset();
    f.model.reply(
      { text: "Filing.", toolCalls: [{ id: "call_deny", name: "create_issue", arguments: { title: "Not wanted" } }] },
      { text: "Understood, not filing it." },
    );
    const issue = await newIssue("Another one");
    await f.api.patch(
      `workspaces/${f.ws}/issues/${issue.id}`,
      { assignee_type: "agent", assignee_id: agentId },
      { token: f.token },
    );
    await f.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
    const approval = f.page.getByRole("group", { name: "Approval for create_issue" });
    await approval.getByText("Not wanted").waitFor();
    await approval.getByRole("button", { name: "Deny" }).click();
    await f.page.getByText("Nothing waits for a decision.").waitFor();
    const found = (await f.api.get(`workspaces/${f.ws}/issues/?q=Not%20wanted`, { token: f.token })).body;
    expect(found).toEqual([]);
    expect(f.browser.problems.filter((problem) => !/status of 4\d\d/.test(problem))).toEqual([]);
  });
});
