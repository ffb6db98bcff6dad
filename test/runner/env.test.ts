import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fakeCliBin } from "../helpers/fake-clis/index.ts";
import { assignmentFor, cliRuntime, RUNNER_TOKEN, RunnerHarness, reportOf, TASK_TOKEN } from "../helpers/runner.ts";

const bin = fakeCliBin(["claude"]);
const scratch = mkdtempSync(join(tmpdir(), "runner-env-"));
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe("an agent CLI's environment", () => {
  it("holds the task token and the task's variables, never the runner token, the runner's own settings or what --no-env names", async () => {
    const harness = new RunnerHarness(
      {
        AGENT_PLATFORM_RUNNER_TOKEN: RUNNER_TOKEN,
        AGENT_PLATFORM_URL: "http://runner-setting.example",
        AGENT_PLATFORM_RUNNER_DIR: "/somewhere",
        TOKEN_COPY: `Bearer ${RUNNER_TOKEN}`,
        AWS_SECRET_ACCESS_KEY: "aws-secret",
        DEPLOY_KEY_PROD: "prod",
        DEPLOY_KEY_STAGING: "staging",
        EDITOR: "vim",
      },
      ["AWS_SECRET_ACCESS_KEY", "DEPLOY_KEY_*"],
    );
    const report = join(scratch, "env.json");
    const assignment = assignmentFor({ prompt: `# ENG-13\nFAKE: report ${report}\n` });
    const { end } = await harness.run(cliRuntime("claude", bin), assignment);
    expect(end.outcome).toBe("complete");

    const env: Record<string, string> = reportOf(report).env;
    expect(Object.values(env).some((value) => value.includes(RUNNER_TOKEN))).toBe(false);
    const platformVariables = Object.fromEntries(
      Object.entries(env).filter(([name]) => name.startsWith("AGENT_PLATFORM_")),
    );
    expect(platformVariables).toEqual({
      AGENT_PLATFORM_URL: assignment.platform.url,
      AGENT_PLATFORM_TOKEN: TASK_TOKEN,
      AGENT_PLATFORM_MCP_URL: assignment.platform.mcp_url,
      AGENT_PLATFORM_TASK_ID: assignment.task.id,
      AGENT_PLATFORM_ISSUE: "ENG-1",
    });
    for (const name of ["TOKEN_COPY", "AWS_SECRET_ACCESS_KEY", "DEPLOY_KEY_PROD", "DEPLOY_KEY_STAGING"]) {
      expect(env).not.toHaveProperty(name);
    }
    expect(env).toMatchObject({
      EDITOR: "vim",
      HOME: harness.home,
      PWD: join(harness.dirs.work, assignment.task.id),
    });
  });
});
