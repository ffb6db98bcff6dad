// Skills delivered to real `agent-platform runner` processes: the assignment names each file by sha256 and URL, the
// runner fetches them with the task token (once per sha256) and writes them where the CLI looks — .claude/skills for
// Claude Code, skills/ and a Skills section of AGENTS.md for the others.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBin, stopBins } from "../helpers/bin.ts";
import { testDialects } from "../helpers/databases.ts";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignIssue, createBoundAgent, type RuntimeFixture, startRuntimeFixture } from "../runtimes/helpers.ts";
import { taskReaching } from "../work/helpers.ts";

const SKILL_MD =
  "---\nname: release-notes\ndescription: Write release notes from done issues\n---\n\nFollow reference/style.md.\n";
const STYLE = "Past tense, one line per issue.\n";

const scratch = mkdtempSync(join(tmpdir(), "runner-skills-"));
const fakeBin = fakeCliBin(["claude"]);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(fakeBin, { recursive: true, force: true });
});

describe.each(testDialects)("skills on runners (%s)", (dialect) => {
  let f: RuntimeFixture;
  let skill: { id: string; files: { path: string; sha256: string }[] };
  /** Requests the server got for skill files, counted where they arrive (the runner's fetches). */
  const fileFetches: { url: string; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    f = await startRuntimeFixture(dialect, { env: { TASK_RETRY_BASE_MS: "50" } });
    f.t.app.server.on("request", (request) => {
      if (/\/skills\/[^/]+\/files\//.test(request.url ?? "")) {
        fileFetches.push({ url: request.url ?? "", authorization: request.headers.authorization });
      }
    });
    const created = await f.api.post(
      `workspaces/${f.ws}/skills`,
      {
        files: [
          { path: "SKILL.md", content: SKILL_MD },
          { path: "reference/style.md", content: STYLE },
        ],
      },
      { token: f.member.token },
    );
    expect(created.status).toBe(201);
    skill = created.body;
  });
  afterAll(() => f.close());
  afterEach(() => stopBins());

  async function startRunner(args: string[], path = process.env.PATH as string) {
    const dir = mkdtempSync(join(scratch, "runner-"));
    const runner = runBin(["runner", "--url", f.t.url, "--token", f.runnerToken, "--dir", dir, ...args], {
      env: { PATH: path, HOME: join(dir, "home") },
    });
    await runner.printed(/registered with/);
    return dir;
  }

  const commentOf = async (issueId: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/${issueId}/comments`, { token: f.member.token })).body[0]?.content;

  it("a command runtime finds skills/<name>/ and the Skills section of AGENTS.md; files are fetched once", async () => {
    const answer = join(scratch, `answer-${dialect}.sh`);
    writeFileSync(
      answer,
      [
        "#!/bin/sh",
        "cat > /dev/null",
        "cat skills/release-notes/SKILL.md skills/release-notes/reference/style.md",
        "grep -F 'release-notes: Write release notes from done issues (`skills/release-notes/SKILL.md`)' AGENTS.md",
      ].join("\n"),
    );
    chmodSync(answer, 0o755);
    const dir = await startRunner(["--name", "cmd", "--runtime", `notes=sh ${answer}`, "--tags", "skills-cmd"]);
    const agent = await createBoundAgent(f, [{ kind: "command", tags: ["skills-cmd"] }], { skills: [skill.id] });

    fileFetches.length = 0;
    const first = await assignIssue(f, agent.id);
    expect((await taskReaching(f, first.id)).status).toBe("succeeded");
    const comment = await commentOf(first.id);
    expect(comment).toContain("Follow reference/style.md.");
    expect(comment).toContain(STYLE.trim());
    expect(comment).toContain("(`skills/release-notes/SKILL.md`)");
    expect(fileFetches).toHaveLength(2);
    expect(fileFetches.every((fetch) => fetch.authorization?.startsWith("Bearer apt_"))).toBe(true);
    for (const file of skill.files) expect(existsSync(join(dir, "skill-files", file.sha256))).toBe(true);

    const second = await assignIssue(f, agent.id, { title: "Again" });
    expect((await taskReaching(f, second.id)).status).toBe("succeeded");
    expect(await commentOf(second.id)).toContain(STYLE.trim());
    expect(fileFetches).toHaveLength(2);
  });

  it("Claude Code finds the skill in .claude/skills/<name>/, its brief without a Skills section", async () => {
    await startRunner(["--name", "clis", "--tags", "skills-claude"], `${fakeBin}:${process.env.PATH}`);
    const agent = await createBoundAgent(f, [{ kind: "claude", tags: ["skills-claude"] }], { skills: [skill.id] });
    const report = join(scratch, `claude-${dialect}.jsonl`);
    const issue = await assignIssue(f, agent.id, { description: `FAKE: report ${report}` });
    expect((await taskReaching(f, issue.id)).status).toBe("succeeded");
    const [started] = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const skillDir = join(started.cwd, ".claude", "skills", "release-notes");
    expect(readFileSync(join(skillDir, "SKILL.md"), "utf8")).toBe(SKILL_MD);
    expect(readFileSync(join(skillDir, "reference", "style.md"), "utf8")).toBe(STYLE);
    expect(started.stdin).not.toContain("## Skills");
    expect(existsSync(join(started.cwd, "skills"))).toBe(false);
  });
});
