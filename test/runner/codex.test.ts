import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSchema } from "@ag-ui/core/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignmentFor, cliRuntime, RunnerHarness, reportOf, TASK_TOKEN } from "../helpers/runner.ts";

const bin = fakeCliBin(["codex"]);
const scratch = mkdtempSync(join(tmpdir(), "runner-codex-"));
const codex = cliRuntime("codex", bin);
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("a Codex task", () => {
  it("runs `codex exec --json` outside a git checkout with the platform's MCP server, and its items become AG-UI events", async () => {
    const harness = new RunnerHarness();
    const report = join(scratch, "first.json");
    const assignment = assignmentFor({ prompt: `# ENG-5 Write release notes\nFAKE: report ${report}\n` });
    const { end, events, sessions } = await harness.run(codex, assignment);

    const seen = reportOf(report);
    expect(seen.cwd).toBe(join(harness.dirs.work, assignment.task.id));
    expect(seen.stdin).toBe(assignment.prompt);
    expect(seen.files).toContain("AGENTS.md");
    expect(seen.argv.slice(0, 3)).toEqual(["exec", "--json", "--skip-git-repo-check"]);
    // The MCP server's bearer token is read from the task token's variable, never written on the command line.
    expect(seen.config).toMatchObject({
      "mcp_servers.platform.url": assignment.platform.mcp_url,
      "mcp_servers.platform.bearer_token_env_var": "AGENT_PLATFORM_TOKEN",
    });
    expect(seen.env.AGENT_PLATFORM_TOKEN).toBe(TASK_TOKEN);
    expect(seen.argv.join(" ")).not.toContain(TASK_TOKEN);

    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const calls = events.filter((event) => event.type === "TOOL_CALL_START");
    expect(calls.map((call) => call.toolCallName)).toEqual(["mcp__platform__get_issue", "shell", "apply_patch"]);
    const resultOf = (name: string) => {
      const id = calls.find((call) => call.toolCallName === name)?.toolCallId;
      return events.find((event) => event.type === "TOOL_CALL_RESULT" && event.toolCallId === id)?.content;
    };
    expect(resultOf("mcp__platform__get_issue")).toBe('{"identifier":"ENG-1"}');
    expect(resultOf("shell")).toContain("AGENTS.md");
    expect(resultOf("apply_patch")).toMatch(/^completed\nadd .*notes\.md$/);
    expect(events.slice(0, 5).map((event) => event.type)).toEqual([
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
    ]);
    expect(events.slice(-3).map((event) => event.type)).toEqual([
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);

    expect(sessions).toEqual([{ sessionId: expect.any(String), workDir: seen.cwd }]);
    expect(end).toEqual({
      outcome: "complete",
      body: {
        output: "Worked on: # ENG-5 Write release notes",
        usage: { input_tokens: 24763, output_tokens: 122 },
        session_id: sessions[0]?.sessionId,
      },
    });
  });

  it("continues an earlier thread with `codex exec resume <id>`", async () => {
    const harness = new RunnerHarness();
    const first = await harness.run(codex, assignmentFor({ prompt: "# ENG-6 Tidy the changelog\n" }));
    const earlier = first.sessions[0]!;

    const report = join(scratch, "resumed.json");
    const { end } = await harness.run(
      codex,
      assignmentFor({
        prompt: `# ENG-6 Tidy the changelog (again)\nFAKE: report ${report}\n`,
        resume: { session_id: earlier.sessionId, work_dir: earlier.workDir },
      }),
    );
    const seen = reportOf(report);
    expect(seen.argv.slice(-3)).toEqual(["resume", earlier.sessionId, "-"]);
    expect(seen.cwd).toBe(earlier.workDir);
    expect(end.outcome === "complete" && end.body.output).toMatch(`Resumed thread ${earlier.sessionId}.`);
  });

  it("fails as retryable with the error of a failed turn", async () => {
    const harness = new RunnerHarness();
    const { end } = await harness.run(codex, assignmentFor({ prompt: "# ENG-7\nFAKE: fail-turn\n" }));
    expect(end).toEqual({
      outcome: "fail",
      body: {
        error: "codex exited with code 1: stream error: unexpected status 503 Service Unavailable",
        retryable: true,
      },
    });
  });
});
