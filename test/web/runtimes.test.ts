// The Runtimes page and "Runs on" in a real browser against a real server, a runner being this test speaking the
// runner API: a runner token made on the page (shown once, Copy, the command to start a runner), the runner it
// registers listed live with its runtimes, offline live when it leaves; revoke and delete asked first; members read
// only; an agent's Runs on saved and shown again, the rest of its runtime_config kept; a task waiting for a runtime
// said so on the issue page; a runner's run shown in Tasks and runs like any run.
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { needs } from "../helpers/system-tools.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const navigator: any;

describe.each(testDialects)("the Runtimes page in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;
  /** The runner token copied from the page. */
  let runnerToken: string;
  const runnerId = randomUUID();

  beforeAll(async () => {
    t = await startTestApp(dialect);
    api = new ApiClient(t.url);
    browser = await launchBrowser({ permissions: ["clipboard-read", "clipboard-write"] });
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const as = () => ({ token });
  const runner = (path: string, body: Record<string, unknown> = {}, id = runnerId) =>
    api.post(`runner/${path}`, { runner_id: id, ...body }, { token: runnerToken });
  const register = (runtimes: Record<string, unknown>[], id = runnerId, name = "build-box") =>
    runner("register", { name, host: "box.local", version: "1.2.3", runtimes }, id);
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const runnerCard = (name: string) => page.getByRole("article", { name: `Runner ${name}` });
  const openRuntimes = async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runtimes" }).click();
    await page.getByRole("heading", { name: "Runtimes", level: 1 }).waitFor();
  };

  it("creates a runner token shown once with Copy and the command that starts a runner", async () => {
    await openRuntimes();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/runtimes`);
    await page.getByText("No runners yet.").waitFor();
    await page.getByRole("textbox", { name: "Token name" }).fill("laptop");
    await page.getByRole("button", { name: "Create runner token" }).click();
    const notice = page.getByRole("status").filter({ hasText: "Copy it now" });
    await notice.waitFor();
    await notice.getByRole("button", { name: "Copy", exact: true }).click();
    runnerToken = await page.evaluate(() => navigator.clipboard.readText());
    expect(runnerToken).toMatch(/^apr_/);
    await notice.getByRole("button", { name: "Copy command" }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(`npx agent-platform runner --url ${t.url} --token ${runnerToken}`);
    await notice.getByRole("button", { name: "Done" }).click();
    expect(await page.getByText(runnerToken).count()).toBe(0);
    await page.getByRole("list", { name: "Runner tokens" }).getByText("laptop").waitFor();
  });

  it("lists a runner that registers, live, with its runtimes; offline when it leaves", async () => {
    const registered = await register([
      { name: "claude", kind: "claude", version: "2.0.1", tags: ["gpu", "linux"], max_concurrent_tasks: 2 },
      { name: "sh", kind: "command" },
    ]);
    expect(registered.status).toBe(200);
    const card = runnerCard("build-box");
    await card.waitFor();
    await card.getByText("box.local").waitFor();
    const runtimes = card.getByRole("list", { name: "Runtimes of build-box" }).getByRole("listitem");
    await expect.poll(() => runtimes.count()).toBe(2);
    const claude = runtimes.filter({ hasText: "Claude Code" });
    for (const words of ["2.0.1", "gpu", "linux", "Online", "0 of 2 running"]) await claude.getByText(words).waitFor();
    await runtimes.filter({ hasText: "Command" }).getByText("0 of 1 running").waitFor();
    expect(await card.locator("time").getAttribute("datetime")).toMatch(/(Z|[+-]\d\d:?\d\d)$/);
    // No UUID where people read.
    expect(await page.getByRole("main").innerText()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    expect((await runner("deregister")).status).toBe(200);
    await expect.poll(() => card.getByText("Offline").count()).toBe(3);
    expect((await register([{ name: "sh", kind: "command" }])).status).toBe(200);
    await card.getByText("Online").first().waitFor();
  });

  it("saves Runs on in the agent form and shows it again, the rest of runtime_config kept", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("button", { name: "New agent" }).click();
    const form = dialog("New agent");
    await form.getByRole("textbox", { name: "Name" }).fill("Coder");
    await form.getByRole("textbox", { name: "Tools needing approval" }).fill("create_issue");
    const runsOn = form.getByRole("group", { name: "Runs on" });
    expect(await runsOn.getByRole("radio", { name: "This server" }).isChecked()).toBe(true);
    await runsOn.getByRole("radio", { name: "Runtimes on runners" }).check();
    const first = runsOn.getByRole("group", { name: "Choice 1" });
    await first.getByRole("combobox", { name: "Kind" }).selectOption({ label: "Claude Code" });
    await first.getByRole("textbox", { name: "Tags" }).fill("gpu, bad tag!");
    await runsOn.getByRole("button", { name: "Add a fallback choice" }).click();
    const second = runsOn.getByRole("group", { name: "Choice 2" });
    await second.getByRole("combobox", { name: "Kind" }).selectOption({ label: "Command" });
    await form.getByRole("button", { name: "Create agent" }).click();
    // A tag that is not a word is named next to its field, and nothing is sent.
    await first.getByText(/Tags are words of letters/).waitFor();
    expect((await api.get(`workspaces/${ws}/agents/`, as())).body).toHaveLength(0);
    await first.getByRole("textbox", { name: "Tags" }).fill("gpu");
    await form.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "Coder", level: 1 }).waitFor();
    await page.getByText("Runs on: Claude Code tagged gpu, then Command").waitFor();
    const [agent] = (await api.get(`workspaces/${ws}/agents/`, as())).body;
    expect(agent.runtime_config).toMatchObject({
      approval_required: ["create_issue"],
      runtime: { select: [{ kind: "claude", tags: ["gpu"] }, { kind: "command" }] },
    });

    // Something of runtime_config the form does not show stays as it is through an edit.
    await api.patch(`workspaces/${ws}/agents/${agent.id}`, { runtime_config: { ...agent.runtime_config, x: 1 } }, as());
    await page.reload();
    await page.getByRole("button", { name: "Edit agent" }).click();
    const editing = page.getByRole("group", { name: "Runs on" });
    expect(await editing.getByRole("radio", { name: "Runtimes on runners" }).isChecked()).toBe(true);
    const shownFirst = editing.getByRole("group", { name: "Choice 1" });
    expect(await shownFirst.getByRole("combobox", { name: "Kind" }).inputValue()).toBe("claude");
    expect(await shownFirst.getByRole("textbox", { name: "Tags" }).inputValue()).toBe("gpu");
    // The fallback first, then back to this server.
    await editing.getByRole("group", { name: "Choice 2" }).getByRole("button", { name: "Move up" }).click();
    expect(await shownFirst.getByRole("combobox", { name: "Kind" }).inputValue()).toBe("command");
    await page.getByRole("button", { name: "Save agent" }).click();
    await page.getByText("Runs on: Command, then Claude Code tagged gpu").waitFor();
    await page.getByRole("button", { name: "Edit agent" }).click();
    await page.getByRole("radio", { name: "This server" }).check();
    await page.getByRole("button", { name: "Save agent" }).click();
    await page.getByText("Runs on: This server").waitFor();
    const saved = (await api.get(`workspaces/${ws}/agents/${agent.id}`, as())).body;
    expect(saved.runtime_config).toEqual({ mcp_servers: [], approval_required: ["create_issue"], x: 1 });
  });

  it("says on the card and the issue page when a task waits for a runtime, and stops when one comes", async () => {
    const agent = (
      await api.post(
        `workspaces/${ws}/agents/`,
        { name: "Codex agent", runtime_config: { runtime: { select: [{ kind: "codex" }] } } },
        as(),
      )
    ).body;
    const issue = (
      await api.post(
        `workspaces/${ws}/issues/`,
        { title: "Port the parser", assignee_type: "agent", assignee_id: agent.id },
        as(),
      )
    ).body;
    // The board's card says so too, and the issue page says where to look.
    await page.goto(`${t.url}/w/${ws}/board`);
    const card = page.getByRole("article", { name: `${issue.identifier} Port the parser` });
    await card.getByText("Waiting for a runtime").waitFor();
    await card.getByRole("link").click();
    const task = page.getByRole("article", { name: "Task of Codex agent" });
    await task.getByText("Waiting for a runtime").waitFor();
    await task.getByRole("link", { name: "See runtimes" }).waitFor();
    const other = randomUUID();
    expect((await register([{ name: "codex", kind: "codex" }], other, "codex-box")).status).toBe(200);
    await expect.poll(() => task.getByText("Waiting for a runtime").count()).toBe(0);
    await page.goBack();
    await card.getByText("Working").waitFor();
    expect((await runner("deregister", {}, other)).status).toBe(200);
  });

  it("shows a runner's run in Tasks and runs like any run: text, tool call with its result, the answer", async () => {
    const agent = (
      await api.post(
        `workspaces/${ws}/agents/`,
        { name: "Shell agent", runtime_config: { runtime: { select: [{ kind: "command" }] } } },
        as(),
      )
    ).body;
    const issue = (
      await api.post(
        `workspaces/${ws}/issues/`,
        { title: "List the files", assignee_type: "agent", assignee_id: agent.id },
        as(),
      )
    ).body;
    await page.goto(`${t.url}/w/${ws}/issues/${issue.id}`);
    const task = page.getByRole("article", { name: "Task of Shell agent" });
    await task.waitFor();
    const claimed = await runner("claim", { wait_ms: 5000 });
    expect(claimed.body.tasks).toHaveLength(1);
    const taskId = claimed.body.tasks[0].task.id;
    const events = [
      { seq: 1, type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { seq: 2, type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Looking at the **files**." },
      { seq: 3, type: "TEXT_MESSAGE_END", messageId: "m1" },
      { seq: 4, type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "Bash" },
      { seq: 5, type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"command":"ls"}' },
      { seq: 6, type: "TOOL_CALL_END", toolCallId: "c1" },
      { seq: 7, type: "TOOL_CALL_RESULT", toolCallId: "c1", messageId: "r1", content: '{"files":["README.md"]}' },
    ];
    expect((await runner(`tasks/${taskId}/events`, { events })).body).toEqual({ cancel: false });
    await task.getByText("files", { exact: true }).waitFor();
    await task.locator("summary", { hasText: "Called Bash" }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runtimes" }).click();
    await runnerCard("build-box").getByText("1 of 1 running").waitFor();
    await page.goBack();
    expect((await runner(`tasks/${taskId}/complete`, { output: "There is one file: README.md" })).status).toBe(200);
    await task.getByText("Succeeded").waitFor();
    await page.getByText("There is one file: README.md").first().waitFor();
  });

  it("revokes a runner token and deletes a runner only after asking", async () => {
    await openRuntimes();
    const tokens = page.getByRole("list", { name: "Runner tokens" });
    await tokens.getByRole("button", { name: "Revoke" }).click();
    await dialog("Revoke the runner token laptop?").getByRole("button", { name: "Cancel" }).click();
    expect((await runner("heartbeat")).status).toBe(200);
    await tokens.getByRole("button", { name: "Revoke" }).click();
    await dialog("Revoke the runner token laptop?").getByRole("button", { name: "Revoke token" }).click();
    await page.getByText("No runner tokens.").waitFor();
    expect((await runner("heartbeat")).status).toBe(401);

    await runnerCard("codex-box").getByRole("button", { name: "Delete runner" }).click();
    await dialog("Delete the runner codex-box?").getByRole("button", { name: "Delete runner" }).click();
    const card = runnerCard("build-box");
    await card.getByRole("button", { name: "Delete runner" }).click();
    await dialog("Delete the runner build-box?").getByRole("button", { name: "Cancel" }).click();
    expect(await card.count()).toBe(1);
    await card.getByRole("button", { name: "Delete runner" }).click();
    await dialog("Delete the runner build-box?").getByRole("button", { name: "Delete runner" }).click();
    await page.getByText("No runners yet.").waitFor();
    expect((await api.get(`workspaces/${ws}/runners`, as())).body).toEqual([]);
  });

  it("shows members the runners read-only: no tokens, no Delete", async () => {
    const member = await registerUser(api, "member");
    await api.post(`workspaces/${ws}/members`, { user_id: member.user.id, role: "member" }, as());
    // A runner for the member to see, with a token made through the API.
    runnerToken = (await api.post(`workspaces/${ws}/runner-tokens`, { name: "ci" }, as())).body.token;
    expect((await register([{ name: "sh", kind: "command" }])).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("textbox", { name: "Email" }).fill(member.user.email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    // Signed in again on the page it left: the Runtimes page, now as a member.
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/runtimes`);
    await runnerCard("build-box").getByText("Command").waitFor();
    expect(await page.getByRole("button", { name: "Delete runner" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Runner tokens" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create runner token" }).count()).toBe(0);
    expect(browser.problems).toEqual([]);
  });
});
