// What the fake agent CLIs are told to do, by lines of the brief they read on stdin:
//   FAKE: report <file>       append {argv, env, cwd, stdin, files} as a JSON line to <file>, once per start
//   FAKE: hang                print the start of the session, then nothing, forever
//   FAKE: crash               print the start, then a few stderr lines, exit 3
//   FAKE: spawn-child <file>  start a child process (same process group) that lives forever; write both pids
//                             to <file> as JSON {cli, child}; then hang
//   FAKE: stubborn            ignore SIGTERM (the child too), so only SIGKILL ends them
//   FAKE: commit <file>       write <file> in the working directory and commit it
//   FAKE: push                after that commit, push the branch to origin
//   FAKE: fail-turn           the turn fails (an API error), exit code as the real CLI gives it
//   FAKE: ask <q>[ | <option>…] call the platform's ask_human over MCP, print its result, then keep going (a model
//                             may): the runner must end the session; a brief holding "The answer: …" is the resumed
//                             session: the answer is heard instead
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export async function readStdin() {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

export function directives(prompt) {
  const found = {};
  for (const line of prompt.split("\n")) {
    const match = /^FAKE: ([\w-]+)(?: (.*))?$/.exec(line.trim());
    if (match) found[match[1]] = match[2] ?? true;
  }
  return found;
}

/** The first line of the brief that is not a directive: the fake's answer names it, proving it read stdin. */
export function briefTitle(prompt) {
  return (
    prompt
      .split("\n")
      .find((line) => line.trim() !== "" && !line.startsWith("FAKE:"))
      ?.trim() ?? ""
  );
}

export function applyStartDirectives(found, prompt, extra = {}) {
  if (found.stubborn) process.on("SIGTERM", () => {});
  if (typeof found.report === "string") {
    appendFileSync(
      found.report,
      `${JSON.stringify({
        argv: process.argv.slice(2),
        env: process.env,
        cwd: process.cwd(),
        stdin: prompt,
        files: readdirSync(process.cwd()),
        ...extra,
      })}\n`,
    );
  }
}

/** After the session has started: the directives that change how the run goes on. */
export function applyRunDirectives(found) {
  if (typeof found["spawn-child"] === "string") {
    const script = found.stubborn
      ? "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"
      : "setInterval(() => {}, 1000);";
    const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    writeFileSync(found["spawn-child"], JSON.stringify({ cli: process.pid, child: child.pid }));
    hang();
    return true;
  }
  if (found.hang) {
    hang();
    return true;
  }
  if (found.crash) {
    process.stderr.write("loading config\nconnecting to the model\nfatal: the model connection was reset\n");
    process.exit(3);
  }
  if (typeof found.commit === "string") {
    writeFileSync(found.commit, "written by the fake agent\n");
    const git = (...args) => execFileSync("git", args, { stdio: "ignore" });
    git("add", found.commit);
    git("-c", "user.name=Fake Agent", "-c", "user.email=agent@example.com", "commit", "-m", `Add ${found.commit}`);
    if (found.push) git("push", "origin", "HEAD");
  }
  return false;
}

/** Calls a tool of the first MCP server of `--mcp-config` (Streamable HTTP, stateless); returns its result's text. */
export async function callMcpTool(mcpConfigs, name, args) {
  const server = Object.values(mcpConfigs[0]?.mcpServers ?? {})[0];
  const response = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...server.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  const json = text.trimStart().startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .find((line) => line.startsWith("data: "))
          .slice(6),
      );
  return json.result?.content?.[0]?.text ?? JSON.stringify(json.error ?? json);
}

/** `FAKE: ask Which colour? | Teal | Red` as ask_human's arguments. */
export function askArguments(directive) {
  const [question, ...options] = directive.split(" | ").map((part) => part.trim());
  return options.length > 0 ? { question, options } : { question };
}

/** The answer a resumed session's brief carries, if any. */
export const answerIn = (prompt) =>
  prompt
    .split("\n")
    .find((line) => line.startsWith("The answer: "))
    ?.slice("The answer: ".length);

export function hang() {
  setInterval(() => {}, 60_000);
}

/**
 * Sessions live in the CLI's store under HOME, like the real ones: a new one is recorded, a resumed one must be
 * there, or the CLI refuses it (on stderr, before printing anything) with `refusal` and exits 1.
 */
export function session(store, resumed, newId, refusal) {
  const dir = join(process.env.HOME ?? "/nonexistent", store);
  if (resumed !== undefined) {
    if (existsSync(join(dir, resumed))) return resumed;
    process.stderr.write(`${refusal}${resumed}\n`);
    process.exit(1);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, newId), "");
  return newId;
}
