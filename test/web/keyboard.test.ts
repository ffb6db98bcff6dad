// The dashboard from the keyboard alone, in a real browser against a real server: a card moved with its Move menu,
// j/k between cards and Enter to open one, `?` for the shortcuts, Ctrl/Cmd+K to jump anywhere; the board's filters
// in the address; an address that names nothing says so. (SQLite: what is tested here is the page, not the store.)
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const document: any;

describe("the dashboard from the keyboard", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  let api: ApiClient;
  const issues: Record<string, any> = {};

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    api = new ApiClient(t.url);
    browser = await launchBrowser();
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api.post("auth/login", { email: account.email, password: account.password })).body.token;
    for (const [title, status, priority] of [
      ["First in the backlog", "backlog", "none"],
      ["Second in the backlog", "backlog", "high"],
      ["Only one to do", "todo", "high"],
    ]) {
      issues[title!] = (await api.post(`workspaces/${ws}/issues/`, { title, status, priority }, { token })).body;
    }
    await page.reload();
    await page.getByRole("article", { name: /Only one to do/ }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const column = (name: string) => page.getByRole("region", { name, exact: true });
  const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? "");
  const statusOnServer = async (title: string) =>
    (await api.get(`workspaces/${ws}/issues/${issues[title].id}`, { token })).body.status;

  it("j and k move between cards in reading order; Enter opens the one in focus", async () => {
    await page.keyboard.press("j");
    expect(await focusedText()).toContain("First in the backlog");
    await page.keyboard.press("j");
    expect(await focusedText()).toContain("Second in the backlog");
    await page.keyboard.press("j");
    expect(await focusedText()).toContain("Only one to do");
    await page.keyboard.press("k");
    expect(await focusedText()).toContain("Second in the backlog");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Second in the backlog", level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole("article", { name: /Only one to do/ }).waitFor();
  });

  it("a card moves with its Move menu and the keyboard alone; the focus follows the card", async () => {
    await page.keyboard.press("j");
    expect(await focusedText()).toContain("First in the backlog");
    await page.keyboard.press("Tab");
    expect(await focusedText()).toBe("Move");
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await menu.waitFor();
    const items = await menu.getByRole("menuitem").allTextContents();
    expect(items.map((text) => text.replace(" ✓", ""))).toEqual([
      "Backlog",
      "Todo",
      "In Progress",
      "In Review",
      "Done",
      "Blocked",
      "Cancelled",
    ]);
    // Esc closes the menu and gives the focus back to Move; nothing moved.
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });
    expect(await focusedText()).toBe("Move");
    // Chromium 156 sometimes drops an Enter that comes right after a popover's Esc (noted in the closing note): the
    // menu opens from the keyboard within a few presses.
    await expect
      .poll(async () => {
        if (!(await menu.isVisible())) await page.keyboard.press("Enter");
        return menu.isVisible();
      })
      .toBe(true);
    // The focus starts on the first other status (Todo); two down is In Review.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await focusedText()).toBe("In Review");
    await page.keyboard.press("Enter");
    await column("In Review")
      .getByRole("article", { name: /First in the backlog/ })
      .waitFor();
    expect(await focusedText()).toContain("First in the backlog");
    await expect.poll(() => statusOnServer("First in the backlog")).toBe("in_review");
    // The menu item is named by status, as the columns are.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "Done", exact: true }).click();
    await column("Done")
      .getByRole("article", { name: /First in the backlog/ })
      .waitFor();
    await expect.poll(() => statusOnServer("First in the backlog")).toBe("done");
    await page.reload();
    await column("Done")
      .getByRole("article", { name: /First in the backlog/ })
      .waitFor();
  });

  it("? lists the shortcuts; Esc closes the list", async () => {
    await page.keyboard.press("?");
    const shortcuts = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await shortcuts.getByText("Open the command palette", { exact: false }).waitFor();
    for (const key of ["c", "/", "j / k", "Enter", "?"])
      expect(await shortcuts.getByText(key, { exact: true }).count()).toBeGreaterThan(0);
    await page.keyboard.press("Escape");
    await shortcuts.waitFor({ state: "hidden" });
  });

  it("Ctrl+K and Cmd+K open the command palette, which jumps to an issue or a page", async () => {
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    const input = palette.getByRole("combobox", { name: "Go to" });
    await input.fill("one to do");
    await palette.getByRole("option", { name: /Only one to do/ }).waitFor();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Only one to do", level: 1 }).waitFor();
    await palette.waitFor({ state: "hidden" });

    await page.keyboard.press("Meta+k");
    await palette.waitFor();
    await input.fill("labels");
    await palette.getByRole("option", { name: /Settings: Labels/ }).waitFor();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Labels", level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/settings/labels`);
  });

  it("the board's filters live in the address: a reload or a shared link keeps them", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    await page.getByRole("combobox", { name: "Filter by priority" }).selectOption({ label: "High" });
    await page.getByRole("searchbox", { name: "Search" }).fill("backlog");
    await page.getByRole("button", { name: "List view" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.toString()).toBe("q=backlog&priority=high&view=list");
    await page
      .getByRole("table")
      .getByRole("link", { name: /Second in the backlog/ })
      .waitFor();
    expect(await page.getByRole("table").getByRole("link").count()).toBe(1);

    const shared = await browser.newPage();
    await shared.goto(page.url());
    await shared
      .getByRole("table")
      .getByRole("link", { name: /Second in the backlog/ })
      .waitFor();
    expect(await shared.getByRole("table").getByRole("link").count()).toBe(1);
    expect(await shared.getByRole("combobox", { name: "Filter by priority" }).inputValue()).toBe("high");
    expect(await shared.getByRole("searchbox", { name: "Search" }).inputValue()).toBe("backlog");
    await shared.close();

    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByRole("button", { name: "Board view" }).click();
    await expect.poll(() => new URL(page.url()).search).toBe("");
    await page.getByRole("article", { name: /Only one to do/ }).waitFor();
  });

  it("an address that names nothing says Page not found, with a way home", async () => {
    for (const path of [`/w/${ws}/nothing-here`, "/somewhere/else", `/w/not-a-workspace/board`]) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
    }
    await page.goto(`${t.url}/w/${ws}/issues/00000000-0000-4000-8000-000000000000`);
    await page.getByRole("heading", { name: "Issue not found" }).waitFor();
    await page.getByRole("link", { name: "Go to the board" }).click();
    await page.getByRole("region", { name: "Backlog" }).waitFor();
    expect(browser.problems.filter((problem) => !/status of 404/.test(problem))).toEqual([]);
  });
});
