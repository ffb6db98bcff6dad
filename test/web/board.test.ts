// The board in a real browser against a real server: an account and workspace made from the forms, issues created
// from the dialog, dragged between columns (holding after reload), changes from another session appearing live,
// a 422 shown next to its field, and signing out.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallRecord } from "../../src/voice/call-record.ts";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { needs } from "../helpers/system-tools.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const document: any;
declare const localStorage: any;

describe.each(testDialects)("the board in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let account: { email: string; password: string; workspaceId: string };
  let token: string;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    api = new ApiClient(t.url);
    browser = await launchBrowser();
    page = await browser.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const card = (title: string) => page.getByRole("link", { name: new RegExp(title) });
  const column = (name: string) => page.getByRole("region", { name, exact: true });
  const issuesOnServer = async () =>
    (await api.get(`workspaces/${account.workspaceId}/issues/`, { token })).body as any[];

  it("creates an account and a workspace from the forms, and shows the empty board", async () => {
    account = await signUpAndCreateWorkspace(page, t.url);
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
    for (const name of ["Backlog", "Todo", "In Progress", "In Review", "Done", "Blocked", "Cancelled"])
      await expect.poll(() => column(name).count()).toBe(1);
    for (const link of ["Board", "Agents", "Runtimes", "Approvals", "Calls", "Settings"])
      expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link }).count()).toBe(1);
    // The token never goes into a URL.
    expect(page.url()).not.toContain(token.slice(0, 20));
  });

  it("creates an issue from the New issue dialog; c opens it and Esc closes it", async () => {
    await page.keyboard.press("c");
    const dialog = page.getByRole("dialog", { name: "New issue" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    await page.getByRole("button", { name: "New issue" }).click();
    await dialog.getByRole("textbox", { name: "Title" }).fill("Write the onboarding guide");
    await dialog.getByRole("textbox", { name: "Description" }).fill("Cover **sign-up** and the first workspace.");
    expect(await dialog.getByRole("combobox", { name: "Assignee" }).count()).toBe(1);
    await dialog.getByRole("button", { name: "Create issue" }).click();
    await dialog.waitFor({ state: "hidden" });
    await column("Backlog")
      .getByRole("link", { name: /ISS-1 Write the onboarding guide/ })
      .waitFor();
    expect((await issuesOnServer()).map((issue) => [issue.title, issue.description])).toEqual([
      ["Write the onboarding guide", "Cover **sign-up** and the first workspace."],
    ]);
  });

  it("a card dragged to another column shows there at once and holds after reload", async () => {
    await card("Write the onboarding guide").dragTo(column("In Progress"));
    await column("In Progress")
      .getByRole("link", { name: /Write the onboarding guide/ })
      .waitFor({ timeout: 500 });
    await expect.poll(async () => (await issuesOnServer())[0].status).toBe("in_progress");
    await page.reload();
    await column("In Progress")
      .getByRole("link", { name: /Write the onboarding guide/ })
      .waitFor();
    expect(await column("Backlog").getByRole("link").count()).toBe(0);
  });

  it("a change made through the API in another session shows on the open board within a second", async () => {
    const created = await api.post(
      `workspaces/${account.workspaceId}/issues/`,
      { title: "Filed by a script", status: "todo", priority: "urgent" },
      { token },
    );
    expect(created.status).toBe(201);
    await column("Todo")
      .getByRole("link", { name: /ISS-2 Filed by a script/ })
      .waitFor({ timeout: 1000 });
    await api.patch(`workspaces/${account.workspaceId}/issues/${created.body.id}`, { status: "done" }, { token });
    await column("Done")
      .getByRole("link", { name: /Filed by a script/ })
      .waitFor({ timeout: 1000 });
  });

  it("a dropped event stream reconnects by itself and catches up with what changed meanwhile", async () => {
    const [issue] = (await issuesOnServer()).filter((each) => each.title === "Filed by a script");
    const streams = () => page.evaluate(() => performance.getEntriesByType("resource").length);
    const before = await streams();
    t.app.server.closeAllConnections();
    // This process's own pooled sockets were closed too: let the client see that before it sends again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await api.patch(`workspaces/${account.workspaceId}/issues/${issue.id}`, { status: "in_review" }, { token });
    await column("In Review")
      .getByRole("link", { name: /Filed by a script/ })
      .waitFor({ timeout: 5000 });
    expect(await streams()).toBeGreaterThan(before);
  });

  it("search (focused with /) narrows the board; the list view shows the same issues", async () => {
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press("/");
    expect(
      await page.getByRole("searchbox", { name: "Search" }).evaluate((box) => box === document.activeElement),
    ).toBe(true);
    await page.keyboard.type("onboarding");
    await expect.poll(() => page.getByRole("link", { name: /Filed by a script/ }).count()).toBe(0);
    await card("Write the onboarding guide").waitFor();
    await page.getByRole("searchbox", { name: "Search" }).fill("");
    await page.getByRole("button", { name: "List view" }).click();
    await page
      .getByRole("table")
      .getByRole("link", { name: /Filed by a script/ })
      .waitFor();
    await page.getByRole("button", { name: "Board view" }).click();
  });

  it("a blank title is said next to its field, in plain words, inside the dialog; nothing is sent", async () => {
    await page.getByRole("button", { name: "New issue" }).click();
    const dialog = page.getByRole("dialog", { name: "New issue" });
    const title = dialog.getByRole("textbox", { name: "Title" });
    await title.fill("   ");
    await dialog.getByRole("button", { name: "Create issue" }).click();
    await expect.poll(() => title.getAttribute("aria-invalid")).toBe("true");
    const description = await title.evaluate((input) =>
      (input.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .map((id: string) => document.getElementById(id)?.textContent ?? "")
        .join(" "),
    );
    expect(description).toBe("Title is required");
    expect(await title.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await dialog.isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    expect((await issuesOnServer()).length).toBe(2);
  });

  it("the New issue dialog keeps focus and what was typed while the board changes live behind it", async () => {
    await page.getByRole("button", { name: "New issue" }).click();
    const dialog = page.getByRole("dialog", { name: "New issue" });
    const title = dialog.getByRole("textbox", { name: "Title" });
    await title.pressSequentially("Half-typed");
    await api.post(`workspaces/${account.workspaceId}/issues/`, { title: "Arrives meanwhile" }, { token });
    await column("Backlog")
      .getByRole("link", { name: /Arrives meanwhile/ })
      .waitFor({ timeout: 1000 });
    await title.pressSequentially(" title");
    expect(await title.inputValue()).toBe("Half-typed title");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });

  it("Settings shows a new API key once; the Calls page says there is no call log to show", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "API keys" }).click();
    await page.getByRole("textbox", { name: "Key name" }).fill("CI");
    await page.getByRole("button", { name: "Create API key" }).click();
    const shown = await page.getByRole("status").locator("code").textContent();
    const [key] = (await api.get(`workspaces/${account.workspaceId}/api-keys`, { token })).body;
    expect(shown?.startsWith(key.prefix)).toBe(true);
    // The key works, and once dismissed it is gone from the page.
    expect(
      (await api.get(`workspaces/${account.workspaceId}/issues/`, { headers: { "x-api-key": shown! } })).status,
    ).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByText(shown!).count()).toBe(0);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Calls" }).click();
    await page.getByText("No call log is available from this server.").waitFor();
    expect(await page.getByText("CALL_WORKSPACE_ID", { exact: false }).count()).toBe(1);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
  });

  it("the Calls page lists a call recorded under the workspace and shows its transcript, user text as text", async () => {
    // Recorded as a call server run with CALL_WORKSPACE_ID records it.
    const record = new CallRecord(t.db, t.app.log, "CAbrowser0001", "MZbrowser0001", account.workspaceId);
    record.addTranscript("caller", "I need a table for two");
    record.addTranscript("assistant", "Booked: <img src=x onerror=alert(1)> at eight");
    await record.end();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Calls" }).click();
    await page.getByRole("link", { name: /Call CAbrowser0001/ }).click();
    const transcript = page.getByRole("list", { name: "Transcript" });
    await transcript.getByText("I need a table for two").waitFor();
    await transcript.getByText("Booked: <img src=x onerror=alert(1)> at eight").waitFor();
    expect(await transcript.getByRole("listitem").allTextContents()).toEqual([
      "CallerI need a table for two",
      "AssistantBooked: <img src=x onerror=alert(1)> at eight",
    ]);
    expect(await page.locator("main img").count()).toBe(0);
    expect(page.url()).toContain(`/calls/${record.callId}`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
  });

  it("signing out returns to sign-in and forgets the token; signing in comes back to the board", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain("token");
    await page.getByRole("textbox", { name: "Email" }).fill(account.email);
    await page.getByLabel("Password").fill("wrong password!");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Invalid email or password").waitFor();
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await column("In Review")
      .getByRole("link", { name: /Filed by a script/ })
      .waitFor();
    // A token the server no longer accepts (a 401) also returns to sign-in.
    await page.evaluate(() =>
      localStorage.setItem(
        "agent-platform.session",
        JSON.stringify({ token: "expired.token.value", user: { id: "x", name: "Ada", email: "a@example.com" } }),
      ),
    );
    await page.reload();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(browser.problems.filter((problem) => !/401|422|status of 4\d\d/.test(problem))).toEqual([]);
  });
});
