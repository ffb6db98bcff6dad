// Questions in a real browser against a real server and a model double (spec control.md §3): an agent's ask_human
// shows on the issue page, in the task's run, with one button per option; clicking one answers, and the run goes on
// to the agent's comment. A free-text question takes its answer from a text box and "Answer".
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { needs } from "../helpers/system-tools.ts";

describe.each(testDialects)("questions in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let model: TestModelServer;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;
  let agentId: string;

  beforeAll(async () => {
    model = await TestModelServer.start();
    t = await startTestApp(dialect, { env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" } });
    api = new ApiClient(t.url);
    browser = await launchBrowser();
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
    agentId = (await api.post(`workspaces/${ws}/agents/`, { name: "Painter" }, { token })).body.id;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await model?.close();
  });

  /** An issue assigned to the agent, whose model asks `args` first and then says `after`. */
  async function askOnIssue(title: string, args: Record<string, unknown>, after: string) {
    model.reset();
    model.reply(
      { text: "One question first.", toolCalls: [{ id: `call_${title.length}`, name: "ask_human", arguments: args }] },
      { text: after },
    );
    const issue = (await api.post(`workspaces/${ws}/issues/`, { title }, { token })).body;
    await page.goto(`${t.url}/w/${ws}/issues/${issue.id}`);
    await page.getByRole("heading", { name: title }).waitFor();
    await api.patch(`workspaces/${ws}/issues/${issue.id}`, { assignee_type: "agent", assignee_id: agentId }, { token });
    return issue;
  }

  it("an open question shows in the run with a button per option; clicking one answers and the run goes on", async () => {
    const issue = await askOnIssue(
      "Paint the fence",
      { question: "Which colour?", options: ["Teal", "Red"] },
      "Teal it is.",
    );
    const task = page.getByRole("article", { name: "Task of Painter" });
    const question = task.getByRole("group", { name: "Question from the agent" });
    await question.getByText("Which colour?").waitFor();
    await task.getByText("Waiting for input", { exact: true }).waitFor();
    await question.getByRole("button", { name: "Red" }).waitFor();
    await question.getByRole("button", { name: "Teal" }).click();
    await page.getByRole("region", { name: "Comments" }).getByText("Teal it is.").waitFor();
    await task.getByText("Succeeded", { exact: true }).waitFor();
    await question.getByText("Answered: Teal").waitFor();
    expect(await question.getByRole("button", { name: "Teal" }).count()).toBe(0);
    const [stored] = (await api.get(`workspaces/${ws}/questions`, { token })).body;
    expect(stored).toMatchObject({ issue_id: issue.id, status: "answered", answer: "Teal" });
    const toolResult = model.requests
      .at(-1)
      ?.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(toolResult.content).toBe("Teal");
    expect(browser.problems).toEqual([]);
  });

  it("a free-text question takes its answer from the text box and Answer", async () => {
    await askOnIssue("Name the release", { question: "What should the release be called?" }, "Naming it Aurora.");
    const question = page
      .getByRole("article", { name: "Task of Painter" })
      .getByRole("group", { name: "Question from the agent" });
    await question.getByRole("textbox", { name: "Your answer" }).fill("Aurora");
    await question.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("region", { name: "Comments" }).getByText("Naming it Aurora.").waitFor();
    const [stored] = (await api.get(`workspaces/${ws}/questions`, { token })).body;
    expect(stored).toMatchObject({ question: "What should the release be called?", answer: "Aurora" });
    expect(browser.problems).toEqual([]);
  });
});
