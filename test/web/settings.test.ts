// Settings in a real browser against a real server: one section per address, a failed load answered by Retry,
// destructive actions asked first (a dialog with the action's button and Cancel), secrets shown once with Copy,
// every invalid field reported at once in plain words (a server 422 next to its field too), and projects and labels
// made here appearing at once in the board's filters and the New issue dialog.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const navigator: any;

describe.each(testDialects)("settings in the browser (%s)", (dialect) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;

  beforeAll(async () => {
    // Webhook hosts resolve to a public address, so a URL is judged by its form alone.
    t = await startTestApp(dialect, {
      events: { webhooks: { resolve: async () => [{ address: "93.184.216.34", family: 4 }] } },
    });
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

  const section = (name: string) =>
    page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name, exact: true });
  const dialog = (name: string | RegExp) => page.getByRole("dialog", { name });
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  it("has one section per address, kept on reload", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Members", level: 2 }).waitFor();
    for (const [name, slug] of [
      ["API keys", "api-keys"],
      ["Webhooks", "webhooks"],
      ["Projects", "projects"],
      ["Labels", "labels"],
    ]) {
      await section(name!).click();
      await page.getByRole("heading", { name: name!, level: 2 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/w/${ws}/settings/${slug}`);
      expect(await section(name!).getAttribute("aria-current")).toBe("page");
    }
    await page.reload();
    await page.getByRole("heading", { name: "Labels", level: 2 }).waitFor();
  });

  it("a section whose load fails says so in an alert, and its Retry loads it", async () => {
    let refused = 0;
    await page.route(`**/api/v1/workspaces/${ws}/webhooks?**`, async (route) => {
      refused++;
      await route.fulfill({ status: 503, contentType: "application/json", body: '{"detail":"Try again later"}' });
    });
    await section("Webhooks").click();
    const alert = page.getByRole("main").getByRole("alert");
    await alert.getByText("Could not load the webhooks: Try again later").waitFor();
    expect(refused).toBeGreaterThan(0);
    expect(await page.getByText("Loading…").count()).toBe(0);
    await page.unroute(`**/api/v1/workspaces/${ws}/webhooks?**`);
    await alert.getByRole("button", { name: "Retry" }).click();
    await page.getByText("No webhooks.").waitFor();
    expect(await page.getByRole("main").getByRole("alert").count()).toBe(0);
  });

  it("a new API key is shown once with Copy; Revoke asks first, and Cancel keeps the key", async () => {
    await section("API keys").click();
    await page.getByRole("textbox", { name: "Key name" }).fill("CI");
    await page.getByRole("button", { name: "Create API key" }).click();
    const notice = page.getByRole("status").filter({ hasText: "Copy it now" });
    const shown = (await notice.locator("code").textContent())!;
    await notice.getByRole("button", { name: "Copy" }).click();
    await notice.getByText("Copied").waitFor();
    expect(await clipboard()).toBe(shown);
    expect((await api.get(`workspaces/${ws}/issues/`, { headers: { "x-api-key": shown } })).status).toBe(200);

    await page.getByRole("button", { name: "Revoke" }).click();
    const ask = dialog("Revoke the key CI?");
    expect(await ask.getByRole("button", { name: "Revoke key" }).count()).toBe(1);
    await ask.getByRole("button", { name: "Cancel" }).click();
    await ask.waitFor({ state: "hidden" });
    expect((await api.get(`workspaces/${ws}/api-keys`, { token })).body).toHaveLength(1);

    await page.getByRole("button", { name: "Revoke" }).click();
    await dialog("Revoke the key CI?").getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No API keys.").waitFor();
    expect((await api.get(`workspaces/${ws}/api-keys`, { token })).body).toEqual([]);
    expect((await api.get(`workspaces/${ws}/issues/`, { headers: { "x-api-key": shown } })).status).toBe(401);
  });

  it("webhooks: the server's 422 shows next to the URL; the secret has Copy; Delete asks first", async () => {
    await section("Webhooks").click();
    const url = page.getByRole("textbox", { name: "Webhook URL" });
    await url.fill("http://hooks.example.test/in");
    await page.getByRole("textbox", { name: "Event types" }).fill("comment.created");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true");
    expect(await url.evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
    await page.getByText("Webhook URL must use https").waitFor();

    await url.fill("https://hooks.example.test/in");
    await page.getByRole("button", { name: "Add webhook" }).click();
    const notice = page.getByRole("status").filter({ hasText: "Signing secret" });
    const secret = (await notice.locator("code").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await notice.getByRole("button", { name: "Copy" }).click();
    await expect.poll(clipboard).toBe(secret);

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog("Delete this webhook?").getByRole("button", { name: "Cancel" }).click();
    expect((await api.get(`workspaces/${ws}/webhooks`, { token })).body).toHaveLength(1);
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog("Delete this webhook?").getByRole("button", { name: "Delete webhook" }).click();
    await page.getByText("No webhooks.").waitFor();
    expect((await api.get(`workspaces/${ws}/webhooks`, { token })).body).toEqual([]);
  });

  it("every invalid field is said at once, in plain words naming it, and nothing is sent", async () => {
    await section("Labels").click();
    await page.getByRole("button", { name: "New label" }).click();
    const form = dialog("New label");
    await form.getByRole("textbox", { name: "Colour", exact: true }).fill("red");
    await form.getByRole("button", { name: "Create" }).click();
    await form.getByText("Name is required").waitFor();
    await form.getByText("Colour must be a colour written #RRGGBB, like #D14343").waitFor();
    for (const name of ["Name", "Colour"])
      expect(await form.getByRole("textbox", { name, exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.keyboard.press("Escape");
    expect((await api.get(`workspaces/${ws}/labels`, { token })).body).toEqual([]);
  });

  it("projects and labels made here appear at once in the board's filters and the New issue dialog", async () => {
    await section("Projects").click();
    await page.getByRole("button", { name: "New project" }).click();
    await dialog("New project").getByRole("textbox", { name: "Name" }).fill("Launch");
    await dialog("New project").getByRole("button", { name: "Create" }).click();
    await page.getByText("Launch", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Rename" }).click();
    await dialog("Rename project").getByRole("textbox", { name: "Name" }).fill("Launch v2");
    await dialog("Rename project").getByRole("button", { name: "Save" }).click();
    await page.getByText("Launch v2", { exact: true }).waitFor();

    await section("Labels").click();
    await page.getByRole("button", { name: "New label" }).click();
    await dialog("New label").getByRole("textbox", { name: "Name" }).fill("bug");
    await dialog("New label").getByRole("textbox", { name: "Colour", exact: true }).fill("#D14343");
    await dialog("New label").getByRole("button", { name: "Create" }).click();
    await page.getByRole("button", { name: "Edit bug" }).click();
    await dialog("Edit label").getByRole("textbox", { name: "Name" }).fill("defect");
    await dialog("Edit label").getByRole("button", { name: "Save" }).click();
    await page.getByRole("button", { name: "Edit defect" }).waitFor();
    const [label] = (await api.get(`workspaces/${ws}/labels`, { token })).body;
    expect([label.name, label.color]).toEqual(["defect", "#D14343"]);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    const options = (name: string) =>
      page.getByRole("combobox", { name }).evaluate((select) => [...select.options].map((o: any) => o.textContent));
    expect(await options("Filter by project")).toContain("Launch v2");
    expect(await options("Filter by label")).toContain("defect");
    await page.getByRole("button", { name: "New issue" }).click();
    const newIssue = dialog("New issue");
    expect(await newIssue.getByRole("combobox", { name: "Project" }).evaluate((s) => s.textContent)).toContain(
      "Launch v2",
    );
    await newIssue.getByRole("textbox", { name: "Title" }).fill("Tagged from the dialog");
    await newIssue.getByRole("combobox", { name: "Project" }).selectOption({ label: "Launch v2" });
    await newIssue.getByRole("checkbox", { name: "defect" }).check();
    await newIssue.getByRole("button", { name: "Create issue" }).click();
    await page
      .getByRole("article", { name: /Tagged from the dialog/ })
      .getByText("defect")
      .waitFor();
    const [issue] = (await api.get(`workspaces/${ws}/issues/`, { token })).body;
    expect(issue.label_ids).toEqual([label.id]);
    expect(issue.project_id).not.toBeNull();

    // Archived, the project leaves the pickers; deleted, the label leaves the filter and the card.
    await page.goto(`${t.url}/w/${ws}/settings/projects`);
    await page.getByRole("button", { name: "Archive" }).click();
    await page.getByRole("heading", { name: "Archived" }).waitFor();
    await page.goto(`${t.url}/w/${ws}/settings/labels`);
    await page.getByRole("button", { name: "Delete defect" }).click();
    await dialog("Delete the label defect?").getByRole("button", { name: "Delete label" }).click();
    await page.getByText("No labels yet.").waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    await page.getByRole("article", { name: /Tagged from the dialog/ }).waitFor();
    expect(await options("Filter by project")).not.toContain("Launch v2");
    expect(await options("Filter by label")).not.toContain("defect");
    expect(
      await page
        .getByRole("article", { name: /Tagged from the dialog/ })
        .getByText("defect")
        .count(),
    ).toBe(0);
  });

  it("removing a member and leaving a workspace ask first", async () => {
    const grace = await registerUser(api, "grace");
    await page.goto(`${t.url}/w/${ws}/settings/members`);
    await page.getByRole("textbox", { name: "Member email" }).fill(grace.user.email);
    await page.getByRole("button", { name: "Add member" }).click();
    const row = page.getByRole("row", { name: new RegExp(grace.user.email) });
    await row.waitFor();
    await row.getByRole("button", { name: "Remove" }).click();
    const ask = dialog(/^Remove /);
    await ask.getByRole("button", { name: "Cancel" }).click();
    expect((await api.get(`workspaces/${ws}/members`, { token })).body).toHaveLength(2);
    await row.getByRole("button", { name: "Remove" }).click();
    await dialog(/^Remove /)
      .getByRole("button", { name: "Remove member" })
      .click();
    await row.waitFor({ state: "detached" });
    expect((await api.get(`workspaces/${ws}/members`, { token })).body).toHaveLength(1);

    // Grace's workspace, which we are added to and then leave: back on our own board.
    const theirs = (await api.post("workspaces/", { name: "Grace's" }, { token: grace.token })).body.id;
    const me = (await api.get("auth/me", { token })).body;
    await api.post(`workspaces/${theirs}/members`, { user_id: me.id }, { token: grace.token });
    await page.goto(`${t.url}/w/${theirs}/settings/members`);
    await page.getByRole("button", { name: "Leave" }).click();
    await dialog("Leave this workspace?").getByRole("button", { name: "Cancel" }).click();
    expect((await api.get(`workspaces/${theirs}/members`, { token: grace.token })).body).toHaveLength(2);
    await page.getByRole("button", { name: "Leave" }).click();
    await dialog("Leave this workspace?").getByRole("button", { name: "Leave workspace" }).click();
    await page.getByRole("region", { name: "Backlog" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/board`);
    expect((await api.get(`workspaces/${theirs}/members`, { token: grace.token })).body).toHaveLength(1);
    expect(browser.problems.filter((problem) => !/status of (4\d\d|503)/.test(problem))).toEqual([]);
  });
});
