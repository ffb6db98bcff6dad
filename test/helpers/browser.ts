// Debian's chromium (on PATH, or CHROMIUM_PATH) driven by playwright-core (no browser download): headless, a fresh profile per launch, and
// every console error and CSP violation of the page collected so a test can assert there were none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { requireTool } from "./system-tools.ts";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab; its console errors and page errors land in `problems`. */
  newPage(): Promise<Page>;
  problems: string[];
  close(): Promise<void>;
}

interface BrowserOptions {
  colorScheme?: "light" | "dark";
  /** An IANA zone, e.g. "America/New_York": the browser's local time (default: this machine's). */
  timezoneId?: string;
  /** Default 1440 × 900; a phone is 390 wide. */
  viewport?: { width: number; height: number };
  /** e.g. ["clipboard-read", "clipboard-write"] */
  permissions?: string[];
  /** e.g. "en-US" (default: the browser's) */
  locale?: string;
}

export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "dashboard-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: requireTool("chromium"),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1440, height: 900 },
    colorScheme: options.colorScheme ?? "light",
    ...(options.timezoneId && { timezoneId: options.timezoneId }),
    ...(options.permissions && { permissions: options.permissions }),
    ...(options.locale && { locale: options.locale }),
  });
  // tsx (esbuild keepNames) wraps named functions in __name(): functions handed to page.evaluate need it there too.
  await context.addInitScript("globalThis.__name ??= (fn) => fn;");
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));
  };
  for (const page of context.pages()) watch(page);
  context.on("page", watch);
  return {
    context,
    problems,
    newPage: async () => {
      const page = await context.newPage();
      // Fail on the step that waits, well before the test's own timeout.
      page.setDefaultTimeout(15_000);
      return page;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs up through the dashboard's own form and creates the first workspace; returns the credentials. */
export async function signUpAndCreateWorkspace(page: Page, baseUrl: string, workspaceName = "Acme") {
  const email = `web-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  const password = "correct horse battery";
  await page.goto(baseUrl);
  await page.getByRole("button", { name: "Create an account" }).click();
  await page.getByRole("textbox", { name: "Name" }).fill("Ada Lovelace");
  await page.getByRole("textbox", { name: "Email" }).fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("textbox", { name: "Workspace name" }).fill(workspaceName);
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.getByRole("region", { name: "Backlog" }).waitFor();
  const workspaceId = /\/w\/([^/]+)\/board/.exec(page.url())?.[1];
  if (!workspaceId) throw new Error(`not on a board: ${page.url()}`);
  return { email, password, workspaceId };
}
