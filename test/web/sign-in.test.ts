// Signing in: the signed-in app is a chunk of its own, fetched beside the sign-in request; when it cannot be fetched
// the page says so with a Retry that fetches it again, instead of a blank page or "Loading…" for ever.
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { needs } from "../helpers/system-tools.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const localStorage: any;

describe("signing in to the dashboard", needs("chromium"), () => {
  let t: TestApp;
  let browser: TestBrowser;
  const password = "correct horse battery";

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function register(): Promise<string> {
    const email = `sign-in-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    expect((await new ApiClient(t.url).post("auth/register", { email, password, name: "Grace" })).status).toBe(201);
    return email;
  }

  /** Signs in from the form (the pages share one browser: the session an earlier test left is dropped first). */
  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(t.url);
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.getByRole("textbox", { name: "Email" }).fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  it("asks for the app while the sign-in request is still on its way", async () => {
    const page = await browser.newPage();
    const email = await register();
    const order: string[] = [];
    let answerLogin!: () => void;
    const loginHeld = new Promise<void>((resolve) => {
      answerLogin = resolve;
    });
    await page.route("**/api/v1/auth/login", async (route: Route) => {
      order.push("login sent");
      await loginHeld;
      order.push("login answered");
      await route.continue();
    });
    page.on("request", (request) => {
      if (/\/assets\/SignedIn-[^/]+\.js$/.test(request.url())) order.push("app asked");
    });
    await signIn(page, email);
    await expect.poll(() => order.includes("app asked"), { timeout: 10_000 }).toBe(true);
    answerLogin();
    await page.getByRole("textbox", { name: "Workspace name" }).waitFor();
    expect(order.indexOf("app asked")).toBeLessThan(order.indexOf("login answered"));
    await page.close();
  });

  it("says the app could not be loaded, and Retry loads it", async () => {
    const page = await browser.newPage();
    const email = await register();
    const chunk = /\/assets\/SignedIn-[^/]+\.js$/;
    await page.route(chunk, (route: Route) => route.abort("connectionreset"));
    await signIn(page, email);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Could not load the dashboard");
    await page.unroute(chunk);
    await alert.getByRole("button", { name: "Retry" }).click();
    await page.getByRole("textbox", { name: "Workspace name" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await page.close();
  });
});
