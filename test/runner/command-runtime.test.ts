import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { LocalRuntime } from "../../src/runner/runtimes.ts";
import { assignmentFor, RunnerHarness, TASK_TOKEN } from "../helpers/runner.ts";

const scratch = mkdtempSync(join(tmpdir(), "runner-command-"));
const spawnHosts = fileURLToPath(new URL("../../src/runner/spawn-host", import.meta.url));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const file = join(scratch, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function commandRuntime(command: string): LocalRuntime {
  return { name: "triage", kind: "command", command, tags: [] };
}

describe("a command runtime", () => {
  it("gets the brief on stdin and the task's variables; its stdout is the answer and its AG-UI lines are passed on", async () => {
    const agent = script(
      "agent.sh",
      [
        "brief=$(cat)",
        'echo "Read: $(printf "%s\\n" "$brief" | head -n 1)"',
        `echo '{"type":"CUSTOM","name":"progress","value":{"percent":50}}'`,
        `echo '{"type":"TEXT_MESSAGE_CONTENT","note":"not a whole event: part of the answer"}'`,
        'echo "Issue $AGENT_PLATFORM_ISSUE, task $AGENT_PLATFORM_TASK_ID, tools at $AGENT_PLATFORM_MCP_URL"',
        `[ "$AGENT_PLATFORM_TOKEN" = "${TASK_TOKEN}" ] && echo "token ok"`,
        `[ -f AGENTS.md ] && echo "brief file ok"`,
      ].join("\n"),
    );
    const harness = new RunnerHarness();
    const assignment = assignmentFor({ prompt: "# ENG-14 Triage the inbox\nMore detail.\n" });
    // The command is a shell command line: arguments and quoting work as in a terminal.
    const { end, events, sessions } = await harness.run(commandRuntime(`sh '${agent}' --verbose`), assignment);

    const answer = [
      "Read: # ENG-14 Triage the inbox",
      '{"type":"TEXT_MESSAGE_CONTENT","note":"not a whole event: part of the answer"}',
      `Issue ENG-1, task ${assignment.task.id}, tools at ${assignment.platform.mcp_url}`,
      "token ok",
      "brief file ok",
    ].join("\n");
    expect(end).toEqual({ outcome: "complete", body: { output: answer } });
    expect(sessions).toEqual([]);
    expect(events.map((event) => event.type)).toEqual([
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "CUSTOM",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    expect(events[3]).toEqual({ type: "CUSTOM", name: "progress", value: { percent: 50 } });
    const streamed = events
      .filter((event) => event.type === "TEXT_MESSAGE_CONTENT")
      .map((event) => event.delta)
      .join("");
    expect(streamed.trimEnd()).toBe(answer);
  });

  it("a program named by its path with plain arguments runs as in a terminal, and so does a script without #!", async () => {
    const harness = new RunnerHarness();
    const direct = script("direct.sh", 'cat > /dev/null\necho "args: $# $1 $2"');
    const ran = await harness.run(
      commandRuntime(`${direct} --mode=fast  ENG-1`),
      assignmentFor({ prompt: "# ENG-1 Plain\n" }),
    );
    expect(ran.end).toEqual({ outcome: "complete", body: { output: "args: 2 --mode=fast ENG-1" } });

    const plain = join(scratch, "no-shebang.sh");
    writeFileSync(plain, 'cat > /dev/null\necho "run by the shell: $1"\n');
    chmodSync(plain, 0o755);
    const shelled = await harness.run(commandRuntime(`${plain} yes`), assignmentFor({ prompt: "# ENG-1 Plain\n" }));
    expect(shelled.end).toEqual({ outcome: "complete", body: { output: "run by the shell: yes" } });
  });

  it("a program named without a path is found on PATH and started without a shell in between", async () => {
    const bin = mkdtempSync(join(scratch, "bin-"));
    // It tells what started it (its parent's command line) and who started that (the parent's parent).
    writeFileSync(
      join(bin, "triage-agent"),
      "#!/bin/sh\ncat > /dev/null\nread -r _ _ _ grandparent _ < /proc/$PPID/stat\n" +
        'echo "parent $(tr "\\0" " " < /proc/$PPID/cmdline)of $grandparent, args $*"\n',
    );
    chmodSync(join(bin, "triage-agent"), 0o755);
    const harness = new RunnerHarness({ PATH: `${bin}:${process.env.PATH}` });
    const ran = await harness.run(commandRuntime("triage-agent --mode=fast"), assignmentFor({ prompt: "# ENG-1\n" }));
    // Its parent is the runner's process starter: no /bin/sh started only to start it.
    expect(ran.end).toMatchObject({ outcome: "complete" });
    const { output } = (ran.end as { body: { output: string } }).body;
    expect(output).toMatch(new RegExp(`^parent \\S+ ${spawnHosts}\\.(pl|mjs) of ${process.pid}, args --mode=fast$`));

    // A shell builtin stays the shell's, and so does a name that is not on PATH.
    const echoed = await harness.run(commandRuntime("echo from the shell"), assignmentFor({ prompt: "# ENG-1\n" }));
    expect(echoed.end).toEqual({ outcome: "complete", body: { output: "from the shell" } });
    const missing = await harness.run(commandRuntime("no-such-agent --help"), assignmentFor({ prompt: "# ENG-1\n" }));
    expect(missing.end).toMatchObject({ outcome: "fail", body: { retryable: true } });
    expect((missing.end as { body: { error: string } }).body.error).toMatch(/no-such-agent: not found/);
  });

  it("examples/runner-agent.mjs answers with what it read", async () => {
    const example = new URL("../../examples/runner-agent.mjs", import.meta.url).pathname;
    const harness = new RunnerHarness();
    const prompt = "# ENG-16 Tidy the README\n\nSome detail.\n";
    const { end, events } = await harness.run(commandRuntime(`node '${example}'`), assignmentFor({ prompt }));
    expect(end).toEqual({
      outcome: "complete",
      body: { output: `I read the brief of ENG-1: ENG-16 Tidy the README\nIt is ${prompt.length} characters long.` },
    });
    expect(events[0]).toEqual({ type: "CUSTOM", name: "progress", value: { step: "read the brief" } });
  });

  it("that exits non-zero fails the task as retryable with the last lines of its stderr", async () => {
    const agent = script(
      "failing.sh",
      ["cat > /dev/null", 'echo "working"', 'for step in 1 2 3; do echo "step $step" >&2; done', "exit 4"].join("\n"),
    );
    const harness = new RunnerHarness();
    const { end } = await harness.run(commandRuntime(agent), assignmentFor({ prompt: "# ENG-15\n" }));
    expect(end).toEqual({
      outcome: "fail",
      body: { error: "triage exited with code 4: step 1\nstep 2\nstep 3", retryable: true },
    });
  });

  it("that answers and exits at once has every line of its answer reported, run after run", async () => {
    const quick = script("quick.sh", 'cat > /dev/null\nfor n in 1 2 3; do echo "line $n"; done');
    const harness = new RunnerHarness();
    // Eight at a time, as a busy runner starts them: the pipe's last lines and its end arrive together.
    for (let round = 0; round < 8; round++) {
      const ends = await Promise.all(
        Array.from({ length: 8 }, () =>
          harness.run(commandRuntime(`sh '${quick}'`), assignmentFor({ prompt: "# ENG-15\n" })),
        ),
      );
      for (const { end } of ends) {
        expect(end, `round ${round}`).toEqual({ outcome: "complete", body: { output: "line 1\nline 2\nline 3" } });
      }
    }
  });
});
