// The Python tools process under stress: results JSON cannot carry, sync calls that never return, a process that stops
// answering, and Ctrl-C in the terminal. Real python3 processes running real tools.py files.
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { type CustomTools, loadCustomTools } from "../../src/tools/custom.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import type { PythonChildOptions } from "../../src/tools/python-child.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import { runBin } from "../helpers/bin.ts";
import { dirWith, removeTempDirs } from "./temp-dir.ts";

const STRESS_TOOLS = `
import math, os, sys, threading, time

class Unprintable:
    def __str__(self):
        raise RuntimeError("no string for you")

class Unspeakable(Exception):
    def __str__(self):
        raise RuntimeError("no message either")

def deep():
    value = []
    for _ in range(100_000):
        value = [value]
    return value

RESULTS = {
    "nan": lambda: float("nan"),
    "inf": lambda: {"big": math.inf},
    "lone_surrogate": lambda: "half a pair: \\ud800",
    "deep": deep,
    "unprintable": lambda: {"thing": Unprintable()},
}

def bad_result(kind):
    return RESULTS[kind]()

def raises_unspeakable():
    raise Unspeakable()

def add(a, b):
    return a + b

def pid():
    return os.getpid()

def stuck():
    threading.Event().wait()

async def wedge():
    time.sleep(3600)  # blocks the event loop: nothing else is answered

def close_stdin():
    sys.stdin.close()
    os.close(0)
    return "closed"

def tool(name, function, properties=None):
    return ({"name": name, "description": name, "parameters": {"type": "object", "properties": properties or {}}}, function)

tools = [
    tool("bad_result", bad_result, {"kind": {"type": "string"}}),
    tool("raises_unspeakable", raises_unspeakable),
    tool("add", add, {"a": {"type": "number"}, "b": {"type": "number"}}),
    tool("pid", pid),
    tool("stuck", stuck),
    tool("wedge", wedge),
    tool("close_stdin", close_stdin),
]
`;

const opened: CustomTools[] = [];
afterAll(async () => {
  await Promise.all(opened.map((custom) => custom.close()));
  removeTempDirs();
});

/** The stress tools behind an invoker with a deadline, so a call that would hang fails the test instead. */
async function stressTools(python: PythonChildOptions = {}, timeoutMs = 5_000) {
  const custom = await loadCustomTools({ cwd: dirWith({ "tools.py": STRESS_TOOLS }), python });
  opened.push(custom);
  const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)), { timeoutMs });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    invoker.call((await invoker.find(name))!, args);
  return { custom, invoker, call };
}

describe("the Python tools process", () => {
  it("a result JSON cannot carry is an error for that call, and the process goes on serving", async () => {
    const { call } = await stressTools();
    const firstPid = await call("pid");
    for (const kind of ["nan", "inf", "lone_surrogate", "deep", "unprintable"]) {
      const outcome = await call("bad_result", { kind });
      expect(outcome, kind).toMatchObject({ ok: false, error: expect.stringContaining("cannot be sent as JSON") });
    }
    expect(await call("raises_unspeakable")).toEqual({
      ok: false,
      error: "Unspeakable: (its message could not be read)",
    });
    expect(await call("add", { a: 2, b: 3 })).toEqual({ ok: true, value: 5 });
    expect(await call("pid")).toEqual(firstPid);
  });

  it("sync calls given up on while they hang do not leave later calls waiting for a thread", async () => {
    const { invoker, call } = await stressTools({}, 300);
    const stuck = (await invoker.find("stuck"))!;
    const abandoned = await Promise.all(Array.from({ length: 40 }, () => invoker.call(stuck, {})));
    expect(abandoned.every((outcome) => !outcome.ok && outcome.error === "stuck timed out after 300 ms")).toBe(true);
    // Answered within the same 300 ms deadline: waiting for a thread, it would have timed out like the others.
    expect(await call("add", { a: 1, b: 1 })).toEqual({ ok: true, value: 2 });
  });

  it("a process that stops answering is ended; its call fails saying so and the next call gets a new process", async () => {
    const { call } = await stressTools({ pingIntervalMs: 100, pingTimeoutMs: 500 });
    const firstPid = (await call("pid")) as { value: number };
    // Ended by the missed pings (its error says so), not by the call's own deadline.
    const wedged = await call("wedge");
    expect(wedged).toMatchObject({ ok: false, error: expect.stringMatching(/stopped answering.*while running wedge/) });
    const secondPid = (await call("pid")) as { value: number };
    expect(secondPid.value).not.toBe(firstPid.value);
    expect(await call("add", { a: 20, b: 22 })).toEqual({ ok: true, value: 42 });
  });

  it("a tool closing stdin does not cut the process off from its caller", async () => {
    const { call } = await stressTools();
    const firstPid = await call("pid");
    expect(await call("close_stdin")).toEqual({ ok: true, value: "closed" });
    expect(await call("add", { a: 1, b: 2 })).toEqual({ ok: true, value: 3 });
    expect(await call("pid")).toEqual(firstPid);
  });

  it("Ctrl-C on `agent-platform serve` with a tools.py ends both quietly: no Python traceback", async () => {
    const dir = dirWith({ "tools.py": STRESS_TOOLS });
    // Its own process group, which Ctrl-C in a terminal signals as a whole.
    const server = runBin(["serve", "--port", "0"], { cwd: dir, detached: true, env: { LOG_LEVEL: "info" } });
    const { child, exited } = server;
    try {
      await server.printed(/7 tools from/, { timeoutMs: 30_000 });
      const pythonPid = Number(
        execFileSync("pgrep", ["-P", String(child.pid), "python3"])
          .toString()
          .trim(),
      );
      expect(pythonPid).toBeGreaterThan(0);
      process.kill(-child.pid!, "SIGINT");
      expect(await exited).toBe(0);
      expect(server.output().stderr).not.toContain("Traceback");
      expect(server.output().stderr).not.toContain("KeyboardInterrupt");
      await expect.poll(() => isRunning(pythonPid)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 60_000);
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
