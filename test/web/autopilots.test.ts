// The Autopilots page in a real browser: an autopilot created from the form with a webhook (its URL shown once and
// working), Fire now making a run that links to its issue, and a paused autopilot's reason with Enable.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { insertAgent } from "../helpers/platform.ts";
import { needs } from "../helpers/system-tools.ts";

describe.each(testDialects)("autopilots in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { AGENT_WORKERS: "0" } });
    api = new ApiClient(t.url);
    browser = await launchBrowser();
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
    await insertAgent(t, ws, "Responder");
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("creates a webhook autopilot from the form; its URL is shown once and fires it; Fire now links the issue", async () => {
    await page.reload();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Autopilots" }).click();
    await page.getByRole("button", { name: "New autopilot" }).click();
    const dialog = page.getByRole("dialog", { name: "New autopilot" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Alerts");
    await dialog.getByRole("textbox", { name: "Issue title" }).fill("Alert {{payload.name}}");
    await dialog.getByRole("combobox", { name: "Overlap" }).selectOption("allow");
    await dialog.getByRole("combobox", { name: "Trigger" }).selectOption("webhook");
    await dialog.getByRole("button", { name: "Create autopilot" }).click();
    const url = await page.getByRole("textbox", { name: "Webhook URL" }).inputValue();
    expect(url).toMatch(/\/api\/v1\/autopilot-hooks\/aph_/);
    const fired = await api.post(new URL(url!).pathname, { name: "disk full" });
    expect(fired.status).toBe(202);

    const item = page.getByRole("listitem", { name: "Alerts" });
    await item.getByRole("button", { name: "Fire now" }).click();
    const runs = item.getByRole("list", { name: "Runs of Alerts" });
    await runs.getByText("manual: issue_created").waitFor();
    await runs.getByText("webhook: issue_created").waitFor();
    await runs.getByRole("link", { name: "issue" }).first().click();
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(page.url()).toMatch(/\/issues\//);
  });

  it("shows a paused autopilot's reason; Enable clears it", async () => {
    const [autopilot] = (await api.get(`workspaces/${ws}/autopilots`, { token })).body;
    await t.db
      .updateTable("autopilots")
      .set({ enabled: 0, paused_reason: "Paused: the tasks of its last 5 issues failed" })
      .where("id", "=", autopilot.id)
      .execute();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Autopilots" }).click();
    const item = page.getByRole("listitem", { name: "Alerts" });
    await item.getByRole("alert").getByText("Paused: the tasks of its last 5 issues failed").waitFor();
    await item.getByRole("button", { name: "Enable" }).click();
    await item.getByRole("alert").waitFor({ state: "detached" });
    const read = (await api.get(`workspaces/${ws}/autopilots/${autopilot.id}`, { token })).body;
    expect(read).toMatchObject({ enabled: true, paused_reason: null });
  });
});
