// Questions in a real browser against a real server and a model double (spec control.md §3): an agent's ask_human
// shows on the issue page, in the task's run, with one button per option; clicking one answers, and the run goes on
// to the agent's comment. A free-text question takes its answer from a text box and "Answer".
import { beforeAll, describe, expect, it } from "vitest";
import { useBrowserFixture } from "../helpers/browser-fixture.ts";
import { testDialects } from "../helpers/databases.ts";
import { needs } from "../helpers/system-tools.ts";

describe.each(testDialects)("questions in the browser (%s)", needs("chromium"), (dialect) => {
  const f = useBrowserFixture(dialect);
  let agentId: string;

  beforeAll(async () => {
    agentId = (await f.api.post(`workspaces/${f.ws}/agents/`, { name: "Painter" }, { token: f.token })).body.id;
  });

  /** An issue assigned to the agent, whose model asks `args` first and then says `after`. */
  async function askOnIssue(title: string, args: Record<string, unknown>, after: string) {
    f.model.reset();
    f.model.reply(
      { text: "One question first.", toolCalls: [{ id: `call_${title.length}`, name: "ask_human", arguments: args }] },
      { text: after },
    );
    const issue = (await f.api.post(`workspaces/${f.ws}/issues/`, { title }, { token: f.token })).body;
    await f.page.goto(`${f.t.url}/w/${f.ws}/issues/${issue.id}`);
    await f.page.getByRole("heading", { name: title }).waitFor();
    await f.api.patch(
      `workspaces/${f.ws}/issues/${issue.id}`,
      { assignee_type: "agent", assignee_id: agentId },
      { token: f.token },
    );
    return issue;
  }

  it("an open question shows in the run with a button per option; clicking one answers and the run goes on", async () => {
    const issue = await askOnIssue(
      "Paint the fence",
      { question: "Which colour?", options: ["Teal", "Red"] },
      "Teal it is.",
    );
    const task = f.page.getByRole("article", { name: "Task of Painter" });
    const question = task.getByRole("group", { name: "Question from the agent" });
    await question.getByText("Which colour?").waitFor();
    await task.getByText("Waiting for input", { exact: true }).waitFor();
    await question.getByRole("button", { name: "Red" }).waitFor();
    await question.getByRole("button", { name: "Teal" }).click();
    await f.page.getByRole("region", { name: "Comments" }).getByText("Teal it is.").waitFor();
    await task.getByText("Succeeded", { exact: true }).waitFor();
    await question.getByText("Answered: Teal").waitFor();
    expect(await question.getByRole("button", { name: "Teal" }).count()).toBe(0);
    const [stored] = (await f.api.get(`workspaces/${f.ws}/questions`, { token: f.token })).body;
    expect(stored).toMatchObject({ issue_id: issue.id, status: "answered", answer: "Teal" });
    const toolResult = f.model.requests
      .at(-1)
      ?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolResult.content).toBe("Teal");
    expect(f.browser.problems).toEqual([]);
  });

  it("a free-text question takes its answer from the text box and Answer", async () => {
    await askOnIssue("Name the release", { question: "What should the release be called?" }, "Naming it Aurora.");
    const question = f.page
      .getByRole("article", { name: "Task of Painter" })
      .getByRole("group", { name: "Question from the agent" });
    await question.getByRole("textbox", { name: "Your answer" }).fill("Aurora");
    await question.getByRole("button", { name: "Answer" }).click();
    await f.page.getByRole("region", { name: "Comments" }).getByText("Naming it Aurora.").waitFor();
    const [stored] = (await f.api.get(`workspaces/${f.ws}/questions`, { token: f.token })).body;
    expect(stored).toMatchObject({ question: "What should the release be called?", answer: "Aurora" });
    expect(f.browser.problems).toEqual([]);
  });
});
