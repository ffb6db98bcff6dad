// Usage and budgets in a real browser against a real server and a model double that reports usage as OpenAI does: each
// run's tokens and cost in Tasks and runs ("cost unknown" for a model with no price), the Usage view in Settings (by
// agent, by day, a chart named "Cost by day"), budgets set from the page with plain-words checks, and an agent
// stopped by its budget saying why on its page and on the issue whose task waits.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { needs } from "../helpers/system-tools.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const localStorage: any;

/** USD per million tokens: the model double's default report (11 in, 7 out) costs 0.011 + 0.014 = $0.0250. */
const PRICE = { input: 1000, output: 2000 };

describe.each(testDialects)("usage and budgets in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let model: TestModelServer;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;
  let coder: { id: string };

  beforeAll(async () => {
    model = await TestModelServer.start();
    model.setDefault({ text: "Done.", usage: { prompt_tokens: 11, completion_tokens: 7 } });
    t = await startTestApp(dialect, { env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" } });
    api = new ApiClient(t.url);
    browser = await launchBrowser({ locale: "en-US" });
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
    coder = (
      await api.post(
        `workspaces/${ws}/agents/`,
        { name: "Coder", model: "openai/test-model", runtime_config: { price: PRICE } },
        { token },
      )
    ).body;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await model?.close();
  });

  const assigned = async (title: string, agentId: string) =>
    (await api.post(`workspaces/${ws}/issues/`, { title, assignee_type: "agent", assignee_id: agentId }, { token }))
      .body;
  const taskOf = async (issueId: string) =>
    (await api.get(`workspaces/${ws}/issues/${issueId}/tasks`, { token })).body[0];
  const finished = (issueId: string) =>
    eventually(async () => {
      const task = await taskOf(issueId);
      return task && ["succeeded", "failed"].includes(task.status) ? task : undefined;
    }, "the task ended");
  const settings = (section: string) =>
    page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: section, exact: true });

  it("Tasks and runs shows each run's tokens and cost, and says when the cost is unknown", async () => {
    const priced = await assigned("Priced work", coder.id);
    expect((await finished(priced.id)).status).toBe("succeeded");
    await page.goto(`${t.url}/w/${ws}/issues/${priced.id}`);
    const task = page.getByRole("article", { name: "Task of Coder" });
    await task.getByText("Usage: 18 tokens (11 in, 7 out) · $0.0250").waitFor();

    const unpriced = (
      await api.post(`workspaces/${ws}/agents/`, { name: "Unpriced", model: "openai/test-model" }, { token })
    ).body;
    const issue = await assigned("Unpriced work", unpriced.id);
    expect((await finished(issue.id)).status).toBe("succeeded");
    await page.goto(`${t.url}/w/${ws}/issues/${issue.id}`);
    await page
      .getByRole("article", { name: "Task of Unpriced" })
      .getByText("Usage: 18 tokens (11 in, 7 out) · cost unknown")
      .waitFor();
  });

  it("the Usage view shows this month by agent and by day, with a chart of the cost by day", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await settings("Usage").click();
    await page.getByRole("heading", { name: "Usage", level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/settings/usage`);

    const byAgent = page.getByRole("table", { name: "Usage by agent" });
    const coderRow = byAgent.getByRole("row").filter({ hasText: "Coder" });
    await coderRow.waitFor();
    expect(await coderRow.getByRole("cell").allTextContents()).toEqual(["Coder", "1", "11", "7", "$0.0250"]);
    expect(await byAgent.getByRole("row").filter({ hasText: "Unpriced" }).getByRole("cell").allTextContents()).toEqual([
      "Unpriced",
      "1",
      "11",
      "7",
      "$0.00",
    ]);

    const byDay = page.getByRole("table", { name: "Usage by day" });
    const today = new Date().toISOString().slice(0, 10);
    const dayRow = byDay.getByRole("row").filter({ has: page.locator(`time[datetime="${today}"]`) });
    expect((await dayRow.getByRole("cell").allTextContents()).slice(1)).toEqual(["2", "22", "14", "$0.0250"]);
    expect(await page.getByRole("img", { name: "Cost by day" }).isVisible()).toBe(true);
    await page.getByText(/: \$0\.0250 over 2 runs, no monthly budget\./).waitFor();

    // Live: another run elsewhere shows here without a reload.
    const more = await assigned("More priced work", coder.id);
    await finished(more.id);
    await coderRow.getByRole("cell", { name: "$0.0500" }).waitFor();
  });

  it("an admin sets the workspace's budget here; a wrong amount is refused in plain words", async () => {
    const budget = page.getByRole("textbox", { name: "Monthly budget (USD)" });
    await budget.fill("ten dollars");
    await page.getByRole("button", { name: "Save budget" }).click();
    await page.getByText("Monthly budget must be an amount in US dollars, like 25 or 12.50").waitFor();
    expect(await budget.getAttribute("aria-invalid")).toBe("true");
    await budget.fill("-3");
    await page.getByRole("button", { name: "Save budget" }).click();
    await page.getByText("Monthly budget cannot be negative").waitFor();
    expect((await api.get(`workspaces/${ws}`, { token })).body.monthly_budget_usd).toBeNull();

    await budget.fill("5");
    await page.getByRole("button", { name: "Save budget" }).click();
    await page.getByText(/1 % of the \$5\.00 monthly budget\./).waitFor();
    expect((await api.get(`workspaces/${ws}`, { token })).body.monthly_budget_usd).toBe(5);
    await budget.fill("");
    await page.getByRole("button", { name: "Save budget" }).click();
    await page.getByText(/, no monthly budget\./).waitFor();
    expect((await api.get(`workspaces/${ws}`, { token })).body.monthly_budget_usd).toBeNull();
  });

  it("an agent stopped by its budget says why on its page, and so does the issue whose task waits", async () => {
    await page.goto(`${t.url}/w/${ws}/agents/${coder.id}`);
    const cost = page.getByRole("region", { name: "Cost this month" });
    await cost.getByText(/: \$0\.0500 over 2 runs, no monthly budget of its own\./).waitFor();
    await cost.getByRole("textbox", { name: "Monthly budget (USD)" }).fill("0.05");
    await cost.getByRole("button", { name: "Save budget" }).click();
    await cost.getByText("Blocked: this agent's monthly budget of $0.0500 is spent.", { exact: false }).waitFor();
    await page.getByText("Blocked", { exact: true }).waitFor();
    await cost.getByText(/: \$0\.0500 over 2 runs, 100 % of its \$0\.0500 monthly budget\./).waitFor();
    expect((await api.get(`workspaces/${ws}/agents/${coder.id}`, { token })).body.status).toBe("blocked");

    const held = await assigned("Held by the budget", coder.id);
    await page.goto(`${t.url}/w/${ws}/issues/${held.id}`);
    const task = page.getByRole("article", { name: "Task of Coder" });
    await task.getByText(/Waiting: the monthly budget is spent\./).waitFor();

    // Once the budget is raised, the waiting task runs on its own and the issue page says so.
    await api.patch(`workspaces/${ws}/agents/${coder.id}`, { monthly_budget_usd: 1 }, { token });
    await task.getByText("Succeeded", { exact: true }).waitFor();
    expect(await task.getByText(/Waiting: the monthly budget/).count()).toBe(0);
  });

  it("a member sees the spend and the budgets, but no budget field to change", async () => {
    const member = await registerUser(api, "member");
    await api.post(`workspaces/${ws}/members`, { email: member.user.email, role: "member" }, { token });
    await page.evaluate((session) => localStorage.setItem("agent-platform.session", session), JSON.stringify(member));
    await page.goto(`${t.url}/w/${ws}/settings/usage`);
    await page.getByText("Admins set the workspace's monthly budget.").waitFor();
    await page.getByRole("table", { name: "Usage by agent" }).getByRole("row").filter({ hasText: "Coder" }).waitFor();
    expect(await page.getByRole("textbox", { name: "Monthly budget (USD)" }).count()).toBe(0);

    await page.goto(`${t.url}/w/${ws}/agents/${coder.id}`);
    const cost = page.getByRole("region", { name: "Cost this month" });
    await cost.getByText(/: \$0\.0750 over 3 runs, 7 % of its \$1\.00 monthly budget\./).waitFor();
    expect(await cost.getByRole("textbox", { name: "Monthly budget (USD)" }).count()).toBe(0);
    expect(browser.problems.filter((problem) => !/status of 4\d\d/.test(problem))).toEqual([]);
  });
});
