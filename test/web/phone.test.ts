// The dashboard on a phone, 390 px wide, in a real browser against a real server: every page fits the screen (no
// sideways scrolling) and every navigation link is reachable behind Menu. (SQLite: what is tested here is the page.)
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallRecord } from "../../src/voice/call-record.ts";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { TestModelServer } from "../helpers/model-server.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const document: any;

const PHONE = { width: 390, height: 844 };

describe("the dashboard at 390 px", () => {
  let t: TestApp;
  let model: TestModelServer;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  const pages: [string, string][] = [];

  beforeAll(async () => {
    model = await TestModelServer.start();
    t = await startTestApp("sqlite", { env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" } });
    const api = new ApiClient(t.url);
    browser = await launchBrowser({ viewport: PHONE });
    page = await browser.newPage();
    // Signing up and the first workspace, on the phone itself.
    const account = await signUpAndCreateWorkspace(page, t.url, "A workspace with a rather long name indeed");
    ws = account.workspaceId;
    const { token } = (await api.post("auth/login", { email: account.email, password: account.password })).body;
    const as = { token };
    const agent = (
      await api.post(
        `workspaces/${ws}/agents/`,
        { name: "Reviewer with a long name", runtime_config: { approval_required: ["create_issue"] } },
        as,
      )
    ).body;
    await api.post(`workspaces/${ws}/labels`, { name: "needs-a-very-long-label-name", color: "#D14343" }, as);
    await api.post(`workspaces/${ws}/projects/`, { title: "Launch" }, as);
    model.reply({
      text: `Here is a long line: ${"https://example.com/a/very/long/path/".repeat(4)}`,
      toolCalls: [{ id: "call_1", name: "create_issue", arguments: { title: "x".repeat(120) } }],
    });
    const issue = (
      await api.post(
        `workspaces/${ws}/issues/`,
        {
          title: "An issue whose title goes on and on so that it must wrap on a narrow screen",
          description: `A very long word: ${"supercalifragilistic".repeat(5)}\n\n\`\`\`\n${"code ".repeat(40)}\n\`\`\``,
          priority: "urgent",
          due_date: "2031-01-01",
          assignee_type: "agent",
          assignee_id: agent.id,
        },
        as,
      )
    ).body;
    await api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "A comment" }, as);
    const runnerToken = (await api.post(`workspaces/${ws}/runner-tokens`, { name: "laptop" }, as)).body.token;
    const registered = await api.post(
      "runner/register",
      {
        runner_id: "phone-runner",
        name: "a-runner-on-a-build-machine-with-a-long-name",
        host: "build-machine-number-seven.internal.example.com",
        version: "1.0.0",
        runtimes: [
          { name: "claude", kind: "claude", version: "2.0.14 (Claude Code)", tags: ["gpu", "linux", "repo-access"] },
          { name: "a-command-runtime-with-a-long-name", kind: "command" },
        ],
      },
      { token: runnerToken },
    );
    if (registered.status !== 200) throw new Error(`register: ${registered.status}`);
    await api.post(`workspaces/${ws}/webhooks`, { url: "https://hooks.example.test/in", types: ["x.y"] }, as);
    const record = new CallRecord(t.db, t.app.log, "CAphone0001", "MZphone0001", ws);
    record.addTranscript("caller", "Hello from a phone");
    await record.end();
    const base = `/w/${ws}`;
    pages.push(
      ["board", `${base}/board`],
      ["list view", `${base}/board?view=list`],
      ["issue", `${base}/issues/${issue.id}`],
      ["agents", `${base}/agents`],
      ["runtimes", `${base}/runtimes`],
      ["agent", `${base}/agents/${agent.id}`],
      ["approvals", `${base}/approvals`],
      ["calls", `${base}/calls/${record.callId}`],
      ["members", `${base}/settings/members`],
      ["api keys", `${base}/settings/api-keys`],
      ["webhooks", `${base}/settings/webhooks`],
      ["projects", `${base}/settings/projects`],
      ["labels", `${base}/settings/labels`],
      ["usage", `${base}/settings/usage`],
      ["not found", `${base}/nowhere`],
      ["new workspace", "/new-workspace"],
    );
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await model?.close();
  });

  const overflow = () =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it("every page fits 390 px: nothing scrolls sideways", async () => {
    const wide: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole("main").first().waitFor();
      await page.getByText("Loading…").first().waitFor({ state: "detached" });
      if (name === "issue") await page.getByRole("button", { name: "Approve" }).waitFor();
      const extra = await overflow();
      if (extra > 0) wide.push(`${name} is ${extra} px too wide`);
    }
    expect(wide).toEqual([]);
  });

  it("the navigation folds behind Menu, and every link is reachable from there", async () => {
    await page.goto(`${t.url}/w/${ws}/board`);
    const nav = page.getByRole("navigation", { name: "Main" });
    const menu = page.getByRole("button", { name: "Menu" });
    expect(await nav.getByRole("link", { name: "Agents" }).isVisible()).toBe(false);
    for (const name of ["Board", "Agents", "Runtimes", "Approvals", "Calls", "Settings"]) {
      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await nav.getByRole("link", { name }).click();
      await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
      expect(new URL(page.url()).pathname).toBe(`/w/${ws}/${name.toLowerCase()}`);
      expect(await overflow()).toBeLessThanOrEqual(0);
    }
  });

  it("a new runner token with its command, and the agent form's Runs on choices, fit too", async () => {
    await page.goto(`${t.url}/w/${ws}/runtimes`);
    await page.getByRole("textbox", { name: "Token name" }).fill("another laptop");
    await page.getByRole("button", { name: "Create runner token" }).click();
    await page.getByRole("button", { name: "Copy command" }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${t.url}/w/${ws}/agents`);
    await page.getByRole("button", { name: "New agent" }).click();
    const runsOn = page.getByRole("dialog", { name: "New agent" }).getByRole("group", { name: "Runs on" });
    await runsOn.getByRole("radio", { name: "Runtimes on runners" }).check();
    await runsOn.getByRole("button", { name: "Add a fallback choice" }).click();
    await runsOn.getByRole("group", { name: "Choice 2" }).getByRole("button", { name: "Move up" }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: "New agent" }).waitFor({ state: "detached" });
  });

  it("signed out, the sign-in and sign-up forms fit too", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Email is required").waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(browser.problems.filter((problem) => !/status of 4\d\d/.test(problem))).toEqual([]);
  });
});
