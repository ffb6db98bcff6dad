// The curl examples of the README and of docs/*.md marked `<!-- run: json -->` or `<!-- run: sse -->` run as written,
// with bash, curl and jq: each file's examples in order (variables set by one carry over to the next, as in one
// terminal) against an `agent-platform serve` started fresh for that file, with the example tools and a model double
// as its OpenAI-compatible server (only the port is changed).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSse } from "../helpers/agui.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { needs } from "../helpers/system-tools.ts";

const root = new URL("../../", import.meta.url).pathname;
/** The README first, then the reference pages in name order. */
const DOCUMENTS = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

interface Example {
  kind: "json" | "sse";
  script: string;
  line: number;
}

function examplesOf(document: string): Example[] {
  const text = readFileSync(join(root, document), "utf8");
  return [...text.matchAll(/<!-- run: (json|sse) -->\n```sh\n([\s\S]*?)\n```/g)].map((match) => ({
    kind: match[1] as Example["kind"],
    script: match[2] ?? "",
    line: text.slice(0, match.index).split("\n").length + 1,
  }));
}

const documents = DOCUMENTS.map((document) => ({ document, examples: examplesOf(document) })).filter(
  ({ examples }) => examples.length > 0,
);

let model: TestModelServer;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  model = await TestModelServer.start();
});
afterAll(async () => {
  for (const cleanup of cleanups) cleanup();
  await model?.close();
});

async function startServer(dataDir: string): Promise<string> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, "bin/agent-platform.js"), "serve", "--port", "0", "--tools", join(root, "examples/tools.ts")],
    {
      cwd: dataDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-test" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  cleanups.push(() => child.kill("SIGKILL"));
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

function runBash(script: string): Promise<{ stdout: string; stderr: string; exitCode: number | null }> {
  return new Promise((resolve) => {
    const bash = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = { stdout: "", stderr: "" };
    bash.stdout.on("data", (chunk) => {
      output.stdout += chunk;
    });
    bash.stderr.on("data", (chunk) => {
      output.stderr += chunk;
    });
    bash.on("close", (code) => resolve({ ...output, exitCode: code }));
  });
}

describe("the examples of the README and docs/", needs("curl", "jq"), () => {
  it("are found where the text has them: the README's tour, and the reference pages", () => {
    const count = (document: string) => documents.find((each) => each.document === document)?.examples.length ?? 0;
    expect(count("README.md")).toBeGreaterThanOrEqual(6);
    expect(count("docs/platform-api.md")).toBeGreaterThanOrEqual(5);
    expect(count("docs/tool-protocol.md")).toBeGreaterThanOrEqual(3);
    expect(count("docs/agent-ui.md")).toBeGreaterThanOrEqual(1);
  });

  it.each(documents)(
    "$document: each runs in order on a fresh server, exiting 0 with the output it documents",
    async ({ document, examples }) => {
      const dataDir = mkdtempSync(join(tmpdir(), "readme-examples-"));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const address = new URL(await startServer(dataDir)).host;
      const names = new Set<string>();
      const state = join(dataDir, "state.sh");
      writeFileSync(state, "");

      for (const example of examples) {
        // Variables set by one example (TOKEN, WS, KEY…) carry over to the next, as in one terminal.
        for (const [, name = ""] of example.script.matchAll(/(?:^|[;\s(])([A-Z][A-Z0-9_]*)=/gm)) names.add(name);
        const script = example.script.replace(/(?:127\.0\.0\.1|localhost):8000/g, address);
        const { stdout, stderr, exitCode } = await runBash(
          `source ${state}\n${script}\n{ declare -p ${[...names].join(" ")} || true; } > ${state}`,
        );
        const where = `${document}:${example.line}\n${stdout}\n${stderr}`;
        expect(exitCode, where).toBe(0);
        if (example.kind === "sse") {
          // A whole run, in either naming: started first, finished last, no error in between.
          const types = parseSse(stdout).map((frame) => String(frame.data?.type).toLowerCase());
          expect(types[0], where).toBe("run_started");
          expect(types.at(-1), where).toBe("run_finished");
          expect(types, where).not.toContain("run_error");
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
    },
    120_000,
  );
});
