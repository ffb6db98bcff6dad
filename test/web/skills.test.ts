// Skills in a real browser against a real server: a skill made from the New skill form, one uploaded as a zip, a
// bad SKILL.md refused with the server's reason, a skill's files read in place, and skills chosen in the agent form.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { testDialects } from "../helpers/databases.ts";
import { needs } from "../helpers/system-tools.ts";
import { buildZip } from "../helpers/zip.ts";

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nFollow reference/style.md.\n`;

describe.each(testDialects)("skills in the browser (%s)", needs("chromium"), (dialect) => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let ws: string;
  let token: string;
  const api = () => new ApiClient(t.url);

  beforeAll(async () => {
    t = await startTestApp(dialect);
    browser = await launchBrowser();
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    token = (await api().post("auth/login", { email: account.email, password: account.password })).body.token;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("creates a skill from the New skill form, and shows the server's reason for a bad SKILL.md", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Skills" }).click();
    await page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
    await page.getByRole("button", { name: "New skill" }).click();
    const dialog = page.getByRole("dialog", { name: "New skill" });
    const editor = dialog.getByRole("textbox", { name: "SKILL.md" });
    await editor.fill(skillMd("Bad Name", "Broken"));
    await dialog.getByRole("button", { name: "Create skill" }).click();
    await dialog.getByRole("alert").filter({ hasText: "name: lower-case letters" }).waitFor();
    await editor.fill(skillMd("triage", "Sort new issues by urgency"));
    await dialog.getByRole("button", { name: "Create skill" }).click();
    await page.getByRole("button", { name: "triage" }).waitFor();
    await expect.poll(() => page.getByRole("cell", { name: "Sort new issues by urgency" }).count()).toBe(1);
  });

  it("uploads a zip and reads its files in place", async () => {
    const zip = buildZip([
      { name: "release-notes/SKILL.md", content: skillMd("release-notes", "Write release notes") },
      { name: "release-notes/reference/style.md", content: "Past tense, one line per issue.\n" },
    ]);
    await page.getByText("Upload zip").locator("input[type=file]").setInputFiles({
      name: "release-notes.zip",
      mimeType: "application/zip",
      buffer: zip,
    });
    await page.getByRole("button", { name: "release-notes" }).click();
    const dialog = page.getByRole("dialog", { name: "Skill release-notes" });
    await dialog.getByRole("list", { name: "Files" }).getByRole("button", { name: "reference/style.md" }).click();
    await dialog
      .getByRole("figure", { name: "reference/style.md" })
      .getByText("Past tense, one line per issue.")
      .waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();

    await page
      .getByText("Upload zip")
      .locator("input[type=file]")
      .setInputFiles({
        name: "escape.zip",
        mimeType: "application/zip",
        buffer: buildZip([
          { name: "SKILL.md", content: skillMd("escape", "x") },
          { name: "../evil.txt", content: "x" },
        ]),
      });
    await page.getByRole("alert").filter({ hasText: "escapes the skill folder" }).waitFor();
    const names = (await api().get(`workspaces/${ws}/skills`, { token })).body.map((skill: any) => skill.name);
    expect(names).toEqual(["release-notes", "triage"]);
  });

  it("chooses skills in the agent form", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("button", { name: "New agent" }).click();
    const dialog = page.getByRole("dialog", { name: "New agent" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Scribe");
    const skills = dialog.getByRole("group", { name: "Skills" });
    await skills.getByRole("checkbox", { name: "release-notes" }).check();
    await dialog.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "Scribe", level: 1 }).waitFor();
    const listed = (await api().get(`workspaces/${ws}/skills`, { token })).body as any[];
    const [agent] = (await api().get(`workspaces/${ws}/agents/`, { token })).body;
    expect(agent.skills).toEqual([listed.find((skill) => skill.name === "release-notes").id]);
  });
});
