import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { EventSchema } from "@ag-ui/core/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignmentFor, cliRuntime, RunnerHarness, reportOf, reportsOf, TASK_TOKEN } from "../helpers/runner.ts";

const bin = fakeCliBin(["claude", "codex"]);
const scratch = mkdtempSync(join(tmpdir(), "runner-claude-"));
const claude = cliRuntime("claude", bin);
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("a Claude Code task", () => {
  it("runs headless with the platform's MCP server and the task token, and its stream becomes AG-UI events and a complete with the answer, usage and cost", async () => {
    const harness = new RunnerHarness();
    const report = join(scratch, "first.json");
    const assignment = assignmentFor({ prompt: `# ENG-1 Fix the login page\nFAKE: report ${report}\n` });
    const { end, events, sessions } = await harness.run(claude, assignment);

    const seen = reportOf(report);
    const workDir = join(harness.dirs.work, assignment.task.id);
    expect(seen.cwd).toBe(workDir);
    expect(seen.stdin).toBe(assignment.prompt);
    expect(seen.files).toEqual(expect.arrayContaining(["AGENTS.md", "CLAUDE.md"]));
    expect(readFileSync(join(workDir, "CLAUDE.md"), "utf8")).toBe(assignment.prompt);
    expect(seen.argv.slice(0, 4)).toEqual(["-p", "--output-format", "stream-json", "--verbose"]);
    expect(seen.mcpConfigs).toEqual([
      {
        mcpServers: {
          platform: {
            type: "http",
            url: assignment.platform.mcp_url,
            headers: { Authorization: `Bearer ${TASK_TOKEN}` },
          },
        },
      },
    ]);
    // The config file held the task token: it is gone with the task.
    const configFile = seen.argv[seen.argv.indexOf("--mcp-config") + 1];
    expect(existsSync(configFile)).toBe(false);
    expect(existsSync(dirname(configFile))).toBe(false);

    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events.map((event) => event.type)).toEqual([
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    expect(events[2]).toMatchObject({ delta: "The brief asks for a comment on the issue." });
    const [start, args, , result] = events.slice(8, 12);
    expect(start).toMatchObject({ toolCallName: "mcp__platform__add_comment", parentMessageId: events[5]?.messageId });
    expect(JSON.parse(String(args?.delta))).toEqual({ issue: "ENG-1", body: "Looking into it" });
    expect(result).toMatchObject({ toolCallId: start?.toolCallId, content: "Comment added", role: "tool" });
    expect(events[13]).toMatchObject({ delta: "Worked on: # ENG-1 Fix the login page" });

    expect(sessions).toEqual([{ sessionId: expect.any(String), workDir }]);
    expect(end).toEqual({
      outcome: "complete",
      body: {
        output: "Worked on: # ENG-1 Fix the login page",
        usage: { input_tokens: 10 + 1200 + 3400, output_tokens: 77, cost_usd: 0.0123 },
        session_id: sessions[0]?.sessionId,
      },
    });
  });

  it("given the session of an earlier attempt, continues it in that attempt's working directory", async () => {
    const harness = new RunnerHarness();
    const first = await harness.run(claude, assignmentFor({ prompt: "# ENG-2 Add a footer\n" }));
    const earlier = first.sessions[0]!;

    const report = join(scratch, "resumed.json");
    const again = assignmentFor({
      prompt: `# ENG-2 Add a footer (new comment: make it blue)\nFAKE: report ${report}\n`,
      resume: { session_id: earlier.sessionId, work_dir: earlier.workDir },
    });
    const { end } = await harness.run(claude, again);

    const seen = reportOf(report);
    expect(seen.cwd).toBe(earlier.workDir);
    expect(seen.argv).toEqual(expect.arrayContaining(["--resume", earlier.sessionId]));
    expect(readFileSync(join(earlier.workDir, "AGENTS.md"), "utf8")).toBe(again.prompt);
    expect(end).toMatchObject({ outcome: "complete", body: { session_id: earlier.sessionId } });
    expect(end.outcome === "complete" && end.body.output).toMatch(`Resumed session ${earlier.sessionId}.`);
  });

  it("starts a new session in the same folder when Claude Code no longer has the one to resume", async () => {
    const harness = new RunnerHarness();
    const first = await harness.run(claude, assignmentFor({ prompt: "# ENG-2 Add a footer\n" }));
    const earlier = first.sessions[0]!;
    rmSync(join(harness.home, ".claude-fake"), { recursive: true }); // the CLI's own session store is gone

    const report = join(scratch, "refused.jsonl");
    const { end, sessions } = await harness.run(
      claude,
      assignmentFor({
        prompt: `# ENG-2 Add a footer (again)\nFAKE: report ${report}\n`,
        resume: { session_id: earlier.sessionId, work_dir: earlier.workDir },
      }),
    );
    const [refused, fresh] = reportsOf(report);
    expect(refused.argv).toEqual(expect.arrayContaining(["--resume", earlier.sessionId]));
    expect(fresh.argv).not.toContain("--resume");
    expect(fresh.cwd).toBe(earlier.workDir);
    expect(sessions).toEqual([{ sessionId: expect.any(String), workDir: earlier.workDir }]);
    expect(sessions[0]?.sessionId).not.toBe(earlier.sessionId);
    expect(end).toMatchObject({ outcome: "complete", body: { output: "Worked on: # ENG-2 Add a footer (again)" } });
  });

  it("is not handed the session of another CLI that worked the issue before", async () => {
    const harness = new RunnerHarness();
    const byCodex = await harness.run(cliRuntime("codex", bin), assignmentFor({ prompt: "# ENG-2 Add a footer\n" }));
    const earlier = byCodex.sessions[0]!;

    const report = join(scratch, "other-cli.json");
    const { end } = await harness.run(
      claude,
      assignmentFor({
        prompt: `# ENG-2 Add a footer\nFAKE: report ${report}\n`,
        resume: { session_id: earlier.sessionId, work_dir: earlier.workDir },
      }),
    );
    // Started once, fresh: never asked to resume a Codex thread.
    const seen = reportOf(report);
    expect(seen.argv).not.toContain("--resume");
    expect(seen.cwd).toBe(earlier.workDir);
    expect(end.outcome).toBe("complete");
  });

  it("does not resume in a folder that is not one of this runner's working directories", async () => {
    const harness = new RunnerHarness();
    const report = join(scratch, "elsewhere.json");
    const assignment = assignmentFor({
      prompt: `# ENG-3\nFAKE: report ${report}\n`,
      resume: { session_id: "0f8fad5b-d9cb-469f-a165-70867728950e", work_dir: scratch },
    });
    const { end } = await harness.run(claude, assignment);

    const seen = reportOf(report);
    expect(seen.cwd).toBe(join(harness.dirs.work, assignment.task.id));
    expect(seen.argv).not.toContain("--resume");
    expect(end.outcome).toBe("complete");
  });

  it("fails as retryable with Claude Code's own error when its turn fails", async () => {
    const harness = new RunnerHarness();
    const { end } = await harness.run(claude, assignmentFor({ prompt: "# ENG-4\nFAKE: fail-turn\n" }));
    expect(end).toEqual({
      outcome: "fail",
      body: { error: "claude exited with code 1: API Error: 529 Overloaded", retryable: true },
    });
  });
});
