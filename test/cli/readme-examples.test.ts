// The README's curl examples marked `<!-- run: json -->` or `<!-- run: sse -->` run as written, in order, with bash,
// curl and jq, against `agent-platform serve` started fresh with the example tools (only the port is changed).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { needs } from "../helpers/system-tools.ts";

const root = new URL("../../", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "readme-examples-"));
let server: ChildProcess | undefined;
afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

interface Example {
  kind: "json" | "sse";
  script: string;
  line: number;
}

function readmeExamples(): Example[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  return [...readme.matchAll(/<!-- run: (json|sse) -->\n```sh\n([\s\S]*?)\n```/g)].map((match) => ({
    kind: match[1] as Example["kind"],
    script: match[2] ?? "",
    line: readme.slice(0, match.index).split("\n").length + 1,
  }));
}

async function startServer(): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(root, "bin/agent-platform.js"), "serve", "--port", "0", "--tools", join(root, "examples/tools.ts")],
    {
      cwd: dataDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  server = child;
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
    if (url) return url;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each value of curl's concatenated JSON output, read by jq. */
async function jsonValues(output: string): Promise<unknown[]> {
  const jq = promisify(execFile)("jq", ["-c", "."], { maxBuffer: 16 * 1024 * 1024 });
  jq.child.stdin?.end(output);
  const { stdout } = await jq;
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

describe("README examples", needs("curl", "jq"), () => {
  it("run in order on a fresh server, each exiting 0 with the output it documents", async () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const address = new URL(await startServer()).host;
    const names = new Set<string>();
    const state = join(dataDir, "state.sh");
    writeFileSync(state, "");

    for (const example of examples) {
      // Variables set by one example (TOKEN, WS, KEY…) carry over to the next, as in one terminal.
      for (const [, name = ""] of example.script.matchAll(/(?:^|;\s*)([A-Z][A-Z0-9_]*)=/gm)) names.add(name);
      const script = example.script.replace(/(?:127\.0\.0\.1|localhost):8000/g, address);
      const { stdout, stderr, exitCode } = await new Promise<{
        stdout: string;
        stderr: string;
        exitCode: number | null;
      }>((resolve) => {
        const bash = spawn(
          "bash",
          [
            "-e",
            "-o",
            "pipefail",
            "-c",
            `source ${state}\n${script}\n{ declare -p ${[...names].join(" ")} || true; } > ${state}`,
          ],
          { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
        );
        const output = { stdout: "", stderr: "" };
        bash.stdout.on("data", (chunk) => {
          output.stdout += chunk;
        });
        bash.stderr.on("data", (chunk) => {
          output.stderr += chunk;
        });
        bash.on("close", (code) => resolve({ ...output, exitCode: code }));
      });
      const where = `README.md:${example.line}\n${stdout}\n${stderr}`;
      expect(exitCode, where).toBe(0);
      if (example.kind === "sse") {
        expect(stdout, where).toMatch(/^event: run_started\ndata: \{/);
        continue;
      }
      const values = await jsonValues(stdout);
      expect(values.length, where).toBeGreaterThan(0);
      for (const value of values) {
        // No error ({"detail"} or a JSON-RPC error), and no list that comes back empty.
        if (Array.isArray(value)) expect(value.length, where).toBeGreaterThan(0);
        else expect(value, where).not.toEqual(expect.objectContaining({ detail: expect.anything() }));
        expect(value, where).not.toEqual(expect.objectContaining({ error: expect.anything() }));
      }
    }
  }, 120_000);
});
