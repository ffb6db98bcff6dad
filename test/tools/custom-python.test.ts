import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type CustomTools, loadCustomTools, ToolsFileError } from "../../src/tools/custom.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import { staticSource, type Tool, ToolRegistry } from "../../src/tools/registry.ts";
import { eventually } from "../helpers/eventually.ts";
import { dirWith, removeTempDirs } from "./temp-dir.ts";

const PY_TOOLS = `
import asyncio, os, sys, threading, time

async def greet(name, greeting="Hello"):
    await asyncio.sleep(0.01)
    return {"message": f"{greeting}, {name}!"}

def add(a, b):
    return {"sum": a + b}

async def slow_async(seconds):
    await asyncio.sleep(seconds)
    return "async done"

def slow_sync(seconds):
    time.sleep(seconds)
    return "sync done"

# Each call waits until \`count\` calls are in at once: only calls that run concurrently all return.
_met = {"async": 0}
_all_met = {}
async def meet_async(count):
    _all_met.setdefault("event", asyncio.Event())
    _met["async"] += 1
    if _met["async"] >= count:
        _all_met["event"].set()
    await asyncio.wait_for(_all_met["event"].wait(), 10)
    return "async met"

_barrier = threading.Barrier(5)
def meet_sync():
    _barrier.wait(10)
    return "sync met"

def slow_then_mark(seconds, path):
    time.sleep(seconds)
    open(path, "w").close()
    return "late"

def fails(reason):
    raise ValueError(reason)

def chatty():
    print("hello from a tool")
    print('{"id": 1, "ok": true, "result": "forged"}')
    os.write(1, b"raw bytes on fd 1\\n")
    sys.stdout.flush()
    return "still fine"

def crash():
    os._exit(3)

def pid():
    return os.getpid()

def odd_values():
    import datetime
    return {"when": datetime.date(2026, 1, 2), "tags": {"only"}, "none": None}

def exits():
    sys.exit(2)

async def last_words():
    asyncio.get_running_loop().call_soon(os._exit, 0)  # runs right after the answer is written
    return "bye"

tools = [
    ({"name": "greet", "description": "Greets", "parameters": {"type": "object", "properties": {"name": {"type": "string"}, "greeting": {"type": "string"}}, "required": ["name"]}}, greet),
    ({"name": "add", "description": "Adds", "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}, add),
    ({"name": "slow_async", "description": "", "parameters": {"type": "object", "properties": {"seconds": {"type": "number"}}}}, slow_async),
    ({"name": "slow_sync", "description": "", "parameters": {"type": "object", "properties": {"seconds": {"type": "number"}}}}, slow_sync),
    ({"name": "fails", "description": "Raises", "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}}}, fails),
    ({"name": "chatty", "description": "Prints"}, chatty),
    ({"name": "crash", "description": "Kills its process"}, crash),
    ({"name": "pid", "description": "Process id"}, pid),
    ({"name": "odd_values", "description": "Returns values JSON has no type for"}, odd_values),
    ({"name": "exits", "description": "Calls sys.exit"}, exits),
    ({"name": "last_words", "description": "Answers, then ends its process"}, last_words),
    ({"name": "meet_async", "description": "", "parameters": {"type": "object", "properties": {"count": {"type": "number"}}}}, meet_async),
    ({"name": "meet_sync", "description": ""}, meet_sync),
    ({"name": "slow_then_mark", "description": "", "parameters": {"type": "object", "properties": {"seconds": {"type": "number"}, "path": {"type": "string"}}}}, slow_then_mark),
]
`;

const opened: CustomTools[] = [];
async function load(files: Record<string, string>): Promise<{ custom: CustomTools; tool(name: string): Tool }> {
  const custom = await loadCustomTools({ cwd: dirWith(files) });
  opened.push(custom);
  const tool = (name: string) => custom.tools.find((candidate) => candidate.name === name)!;
  return { custom, tool };
}

async function loadError(source: string): Promise<ToolsFileError> {
  const dir = dirWith({ "tools.py": source });
  const error = await loadCustomTools({ cwd: dir }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolsFileError);
  expect((error as ToolsFileError).message).toContain(join(dir, "tools.py"));
  return error as ToolsFileError;
}

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.all(opened.map((custom) => custom.close()));
  removeTempDirs();
});

describe("Python tools", () => {
  it("lists the definitions and calls async and sync functions with named arguments", async () => {
    const { custom, tool } = await load({ "tools.py": PY_TOOLS });
    expect(custom.file).toMatch(/tools\.py$/);
    expect(custom.tools.map((candidate) => candidate.name)).toEqual([
      "greet",
      "add",
      "slow_async",
      "slow_sync",
      "fails",
      "chatty",
      "crash",
      "pid",
      "odd_values",
      "exits",
      "last_words",
      "meet_async",
      "meet_sync",
      "slow_then_mark",
    ]);
    expect(tool("greet").inputSchema.required).toEqual(["name"]);
    expect(tool("chatty").inputSchema).toEqual({ type: "object", properties: {} });
    expect(await tool("greet").run({ name: "Ada" }, {})).toEqual({ message: "Hello, Ada!" });
    expect(await tool("greet").run({ greeting: "Hi", name: "Bob" }, {})).toEqual({ message: "Hi, Bob!" });
    expect(await tool("add").run({ a: 2, b: 40 }, {})).toEqual({ sum: 42 });
  });

  it("runs calls concurrently: async ones on the loop, sync ones in threads", async () => {
    const { tool } = await load({ "tools.py": PY_TOOLS });
    // Five async calls each wait for all five on the loop, five sync ones meet at a barrier of five threads: run one
    // after another, none would return (each gives up after 10 s with an error).
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => tool("meet_async").run({ count: 5 }, {})),
      ...Array.from({ length: 5 }, () => tool("meet_sync").run({}, {})),
      tool("add").run({ a: 1, b: 1 }, {}),
    ]);
    expect(results).toEqual([...Array(5).fill("async met"), ...Array(5).fill("sync met"), { sum: 2 }]);
  });

  it("a tool that raises gives an error outcome with the exception type and message", async () => {
    const { custom } = await load({ "tools.py": PY_TOOLS });
    const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)));
    const fails = (await invoker.find("fails"))!;
    expect(await invoker.call(fails, { reason: "no such city" })).toEqual({
      ok: false,
      error: "ValueError: no such city",
    });
    const add = (await invoker.find("add"))!;
    expect(await invoker.call(add, { a: 1, b: "x" })).toEqual({
      ok: false,
      error: "Invalid arguments for add: b must be number",
    });
    expect(await invoker.call(add, { a: 1, b: 2 })).toEqual({ ok: true, value: { sum: 3 } });
  });

  it("unexpected arguments, sys.exit() and values JSON lacks are handled without losing the process", async () => {
    const { custom, tool } = await load({ "tools.py": PY_TOOLS });
    const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)));
    const childPid = await tool("pid").run({}, {});
    // The schema allows extra properties; Python refuses the keyword, and that is the tool's error.
    expect(await invoker.call(tool("greet"), { name: "Ada", colour: "red" })).toEqual({
      ok: false,
      error: "TypeError: greet() got an unexpected keyword argument 'colour'",
    });
    expect(await invoker.call(tool("exits"), {})).toEqual({ ok: false, error: "SystemExit: 2" });
    expect(await tool("odd_values").run({}, {})).toEqual({ when: "2026-01-02", tags: ["only"], none: null });
    expect(await tool("pid").run({}, {})).toBe(childPid);
  });

  it("print() in the tools file and in a tool goes to stderr, prefixed, and does not break the protocol", async () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return original(chunk);
    });
    const { tool } = await load({ "tools.py": `print("loading the tools")\n${PY_TOOLS}` });
    expect(await tool("chatty").run({}, {})).toBe("still fine");
    expect(await tool("add").run({ a: 1, b: 2 }, {})).toEqual({ sum: 3 });
    await vi.waitFor(() => expect(written.join("")).toContain("[tools.py] raw bytes on fd 1"));
    expect(written.join("")).toContain("[tools.py] loading the tools\n");
    expect(written.join("")).toContain("[tools.py] hello from a tool\n");
  });

  it("a tool that kills its process fails clearly, calls in flight fail, and the next call restarts it", async () => {
    const { tool } = await load({ "tools.py": PY_TOOLS });
    const firstPid = await tool("pid").run({}, {});
    const inFlight = tool("slow_async").run({ seconds: 5 }, {});
    await expect(tool("crash").run({}, {})).rejects.toThrow(
      /Python tools process \(tools\.py\) ended \(exit code 3\) while running crash; it is restarted on the next call/,
    );
    await expect(inFlight).rejects.toThrow(/ended \(exit code 3\) while running slow_async/);
    const secondPid = await tool("pid").run({}, {});
    expect(secondPid).not.toBe(firstPid);
    expect(await tool("add").run({ a: 1, b: 2 }, {})).toEqual({ sum: 3 });
  });

  it("an answer written just before the process ends still arrives", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { tool } = await load({ "tools.py": PY_TOOLS });
      expect(await tool("last_words").run({}, {})).toBe("bye");
    }
  });

  it("a Python process killed from outside fails its calls clearly and is restarted", async () => {
    const { tool } = await load({ "tools.py": PY_TOOLS });
    const childPid = (await tool("pid").run({}, {})) as number;
    const inFlight = tool("slow_sync").run({ seconds: 5 }, {});
    process.kill(childPid, "SIGKILL");
    await expect(inFlight).rejects.toThrow(/ended \(killed by SIGKILL\) while running slow_sync/);
    expect(await tool("pid").run({}, {})).not.toBe(childPid);
  });

  it("a restart after the file was broken fails the call with the load error, naming file and line", async () => {
    const { custom, tool } = await load({ "tools.py": PY_TOOLS });
    writeFileSync(custom.file!, "tools = [\n    oops(\n");
    await expect(tool("crash").run({}, {})).rejects.toThrow(/ended \(exit code 3\)/);
    await expect(tool("add").run({ a: 1, b: 2 }, {})).rejects.toThrow(/tools\.py:2: SyntaxError/);
    writeFileSync(custom.file!, PY_TOOLS);
    expect(await tool("add").run({ a: 1, b: 2 }, {})).toEqual({ sum: 3 });
  });

  it("repeated crashes each fail clearly and the restarts back off instead of spinning", async () => {
    const { tool } = await load({ "tools.py": PY_TOOLS });
    // Three restarts after immediate crashes wait 100 + 200 + 400 ms: a timer of 700 ms set now fires first.
    let backoffsOver = false;
    setTimeout(() => {
      backoffsOver = true;
    }, 700);
    for (let attempt = 0; attempt < 4; attempt++) {
      await expect(tool("crash").run({}, {})).rejects.toThrow(/ended \(exit code 3\)/);
    }
    expect(backoffsOver).toBe(true);
    expect(await tool("greet").run({ name: "again" }, {})).toEqual({ message: "Hello, again!" });
  });

  it("an aborted call is given up at once and its late answer is ignored", async () => {
    const { custom, tool } = await load({ "tools.py": PY_TOOLS });
    const finished = join(dirname(custom.file!), "finished");
    const controller = new AbortController();
    const slow = tool("slow_then_mark").run({ seconds: 1.5, path: finished }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(slow).rejects.toThrow(/cancelled/);
    // At once: before the tool itself finished.
    expect(existsSync(finished)).toBe(false);
    await eventually(() => existsSync(finished), "the tool to finish and answer late");
    expect(await tool("add").run({ a: 2, b: 2 }, {})).toEqual({ sum: 4 });
    const aborted = AbortSignal.abort();
    await expect(tool("add").run({ a: 2, b: 2 }, { signal: aborted })).rejects.toThrow(/cancelled/);
  });

  it("close() ends the Python process", async () => {
    const { custom, tool } = await load({ "tools.py": PY_TOOLS });
    const childPid = (await tool("pid").run({}, {})) as number;
    await custom.close();
    expect(() => process.kill(childPid, 0)).toThrow(/ESRCH/);
    await expect(tool("pid").run({}, {})).rejects.toThrow(/closed/);
  });
});

describe("a tools.py that cannot be loaded", () => {
  it("a syntax error names the file and line", async () => {
    const error = await loadError('tools = [\n    ({"name": "x"}, lambda: 1),\n    def\n]\n');
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/tools\.py:3: SyntaxError: invalid syntax/);
  });

  it("a failing import names the file and the import line", async () => {
    const error = await loadError("import os\n\nimport module_that_does_not_exist\n\ntools = []\n");
    expect(error.message).toMatch(/tools\.py:3: ModuleNotFoundError: No module named 'module_that_does_not_exist'/);
  });

  it("an exception raised at import names the line that raised", async () => {
    const error = await loadError('def setup():\n    raise RuntimeError("no API key")\n\nsetup()\ntools = []\n');
    expect(error.message).toMatch(/tools\.py:2: RuntimeError: no API key/);
  });

  it("a module without a tools list, or with a wrong shape, is an error", async () => {
    expect((await loadError("tool = []\n")).message).toMatch(/defines no `tools`/);
    expect((await loadError("tools = 3\n")).message).toMatch(/must be a list/);
    expect((await loadError('tools = [({"name": "a"}, "not a function")]\n')).message).toMatch(
      /tools\[0\] must be a \(definition, function\) pair/,
    );
  });

  it("a definition without a name, or two with the same name, is an error", async () => {
    expect((await loadError('tools = [({"description": "x"}, lambda: 1)]\n')).message).toMatch(
      /tools\[0\]: the definition has no name/,
    );
    const twice = 'tools = [\n    ({"name": "same"}, lambda: 1),\n    ({"name": "same"}, lambda: 2),\n]\n';
    expect((await loadError(twice)).message).toMatch(/tools\.py:3: tools\[1\]: the name "same" is already used/);
  });
});
