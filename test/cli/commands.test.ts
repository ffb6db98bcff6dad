// The command line on first run: help and the version without side effects, bad input as a usage error (exit 2),
// and an API key that is not in the database said plainly. Every case runs the real bin.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, runBin, stopBins } from "../helpers/bin.ts";

const dirs: string[] = [];
afterEach(async () => {
  await stopBins();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the bin to its end in a directory the test keeps, to look at what it left there. */
async function runToEnd(args: string[], env: Record<string, string> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), "agent-platform-first-run-"));
  dirs.push(cwd);
  const run = runBin(args, { cwd, env });
  const code = await run.exited;
  return { code, ...run.output(), files: readdirSync(cwd) };
}

const COMMANDS = ["serve", "call", "mcp", "migrate"];
const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;

// Each case starts the bin (tsx compiling on the fly): a second or more on a busy machine.
describe("agent-platform, first run", { timeout: 60_000 }, () => {
  it("--help, -h, `help` and no arguments print the usage listing every command, and exit 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"], []]) {
      const run = await runToEnd(args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout).toMatch(/^Usage: agent-platform <command> \[options\]/);
      for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));
      expect(run.stderr).toBe("");
      expect(run.files).toEqual([]); // nothing started, no database made
    }
  });

  it("<command> --help prints that command's options and exits 0 without starting or migrating anything", async () => {
    const expectedOptions: Record<string, string[]> = {
      serve: ["--host HOST", "--port PORT", "--tools PATH", "-h, --help"],
      call: ["--public", "--port PORT", "--tools PATH", "-h, --help"],
      mcp: ["--tools PATH", "--workspace ID", "-h, --help"],
      migrate: ["-h, --help"],
    };
    for (const command of COMMANDS) {
      // A database that is not there and could not be made: migrating would fail loudly.
      const run = await runToEnd([command, "--help"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
      expect(run.code, command).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: agent-platform ${command}\\b`));
      for (const option of expectedOptions[command]!) expect(run.stdout).toContain(option);
      expect(run.stderr).toBe("");
      expect(run.files).toEqual([]);
    }
    const help = await runToEnd(["help", "serve"]);
    expect(help.stdout).toMatch(/^Usage: agent-platform serve \[options\]/);
  });

  it("--version and -v print the package's version", async () => {
    for (const flag of ["--version", "-v"]) {
      const run = await runToEnd([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  it("an unknown command, an unknown option or a stray argument prints the usage on stderr and exits 2", async () => {
    const cases: Array<[string[], RegExp, RegExp]> = [
      [["bogus"], /^agent-platform: Unknown command: bogus\n/, /Usage: agent-platform <command>/],
      [["--bogus"], /^agent-platform: Unknown option '--bogus'/, /Usage: agent-platform <command>/],
      [["serve", "--bogus"], /^agent-platform: Unknown option '--bogus'/, /Usage: agent-platform serve/],
      [["migrate", "now"], /^agent-platform: Unexpected argument 'now'/, /Usage: agent-platform migrate/],
      [["serve", "--port"], /^agent-platform: Option '--port <value>' argument missing/, /Usage: agent-platform serve/],
      [["serve", "--port", "eighty"], /^agent-platform: --port must be a port number/, /Usage: agent-platform serve/],
      [["call", "--loud"], /^agent-platform: Unknown option '--loud'/, /Usage: agent-platform call/],
      [["mcp", "--workspace"], /^agent-platform: Option '--workspace <value>'/, /Usage: agent-platform mcp/],
      [["help", "bogus"], /^agent-platform: Unknown command: bogus\n/, /Usage: agent-platform <command>/],
    ];
    for (const [args, message, usage] of cases) {
      const run = await runToEnd(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toMatch(message);
      expect(run.stderr, args.join(" ")).toMatch(usage);
      expect(run.stdout).toBe("");
      expect(run.files).toEqual([]);
    }
  });

  it("migrate names the database it brought up to date", async () => {
    const first = await runToEnd(["migrate"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Applied 0001_init, .+ \(\/.+\/data\/agent-platform\.db\)\n$/);
    expect(first.files).toEqual(["data"]);
  });

  it("mcp with an API key the database does not have says so on stderr, naming that database, and exits 1", async () => {
    const run = await runToEnd(["mcp"], { AGENT_PLATFORM_API_KEY: "ap_made_in_another_database" });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const database = join(dirs.at(-1)!, "data", "agent-platform.db");
    expect(existsSync(database)).toBe(true);
    // Run from another directory, the default database is a new one: the line says where it looked, and why empty.
    expect(run.stderr.trim().split("\n")).toEqual([
      `AGENT_PLATFORM_API_KEY: no such API key in database ${database} (created just now, so empty: set DATABASE_URL to the platform's database)`,
    ]);
  });
});
