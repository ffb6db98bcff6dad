import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCustomTools, ToolsFileError } from "../../src/tools/custom.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import { dirWith, removeTempDirs } from "./temp-dir.ts";

afterAll(removeTempDirs);

const TS_TOOLS = `
interface Args { a: number; b: number }
export const tools = [
  [
    { name: "add", description: "Adds", parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
    async ({ a, b }: Args) => ({ sum: a + b }),
  ],
  [{ name: "shout", description: "Upper-cases" , parameters: { type: "object", properties: { text: { type: "string" } } } }, ({ text }: { text: string }) => text.toUpperCase()],
  [{ name: "no_params", description: "Takes nothing" }, () => "ok"],
  [{ name: "fails", description: "Throws" }, async () => { throw new Error("the tool broke"); }],
];
`;
const jsTools = (name: string) =>
  `export const tools = [[{ name: "${name}", description: "d" }, async () => "${name}"]];\n`;
const PY_TOOLS = `tools = [({"name": "from_py", "description": "d"}, lambda: "from_py")]\n`;

async function loadError(options: { cwd?: string; path?: string }): Promise<ToolsFileError> {
  const error = await loadCustomTools(options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolsFileError);
  return error as ToolsFileError;
}

describe("loading a TS/JS tools file", () => {
  it("loads tools.ts from the working directory and runs async and sync functions", async () => {
    const dir = dirWith({ "tools.ts": TS_TOOLS });
    const custom = await loadCustomTools({ cwd: dir });
    expect(custom.file).toBe(join(dir, "tools.ts"));
    expect(custom.tools.map((tool) => tool.name)).toEqual(["add", "shout", "no_params", "fails"]);
    const [add, shout, noParams] = custom.tools;
    expect(add!.description).toBe("Adds");
    expect(add!.inputSchema.required).toEqual(["a", "b"]);
    expect(await add!.run({ a: 2, b: 3 }, {})).toEqual({ sum: 5 });
    expect(await shout!.run({ text: "hi" }, {})).toBe("HI");
    expect(noParams!.inputSchema).toEqual({ type: "object", properties: {} });
    await custom.close();
  });

  it("passes the call's context (with its abort signal) as the second argument", async () => {
    const source =
      'export const tools = [[{ name: "ctx" }, (args: object, ctx: { signal?: AbortSignal; workspaceId?: string }) =>' +
      " ({ args, workspaceId: ctx.workspaceId, aborted: ctx.signal?.aborted })]];\n";
    const custom = await loadCustomTools({ cwd: dirWith({ "tools.ts": source }) });
    const signal = AbortSignal.abort();
    expect(await custom.tools[0]!.run({ x: 1 }, { workspaceId: "w1", signal })).toEqual({
      args: { x: 1 },
      workspaceId: "w1",
      aborted: true,
    });
  });

  it("loads tools.js and tools.mjs", async () => {
    const js = await loadCustomTools({ cwd: dirWith({ "tools.js": jsTools("from_js") }) });
    expect(await js.tools[0]!.run({}, {})).toBe("from_js");
    const mjs = await loadCustomTools({ cwd: dirWith({ "tools.mjs": jsTools("from_mjs") }) });
    expect(await mjs.tools[0]!.run({}, {})).toBe("from_mjs");
  });

  it("takes tools.ts, then tools.js, then tools.mjs, then tools.py", async () => {
    const all = {
      "tools.ts": jsTools("from_ts"),
      "tools.js": jsTools("from_js"),
      "tools.mjs": jsTools("from_mjs"),
      "tools.py": PY_TOOLS,
    };
    const names = async (files: Record<string, string>) => {
      const custom = await loadCustomTools({ cwd: dirWith(files) });
      await custom.close();
      return custom.tools.map((tool) => tool.name);
    };
    const { "tools.ts": _ts, ...withoutTs } = all;
    const { "tools.js": _js, ...withoutJs } = withoutTs;
    const { "tools.mjs": _mjs, ...onlyPy } = withoutJs;
    expect(await names(all)).toEqual(["from_ts"]);
    expect(await names(withoutTs)).toEqual(["from_js"]);
    expect(await names(withoutJs)).toEqual(["from_mjs"]);
    expect(await names(onlyPy)).toEqual(["from_py"]);
  });

  it("finds nothing in a directory without a tools file", async () => {
    const custom = await loadCustomTools({ cwd: dirWith({ "other.ts": jsTools("x") }) });
    expect(custom.file).toBeUndefined();
    expect(custom.tools).toEqual([]);
    await custom.close();
  });

  it("loads the file or directory given as path, relative to cwd", async () => {
    const dir = dirWith({ "my-tools.ts": jsTools("chosen"), "tools.ts": jsTools("not_chosen") });
    const byFile = await loadCustomTools({ cwd: dir, path: "my-tools.ts" });
    expect(byFile.file).toBe(join(dir, "my-tools.ts"));
    expect(byFile.tools.map((tool) => tool.name)).toEqual(["chosen"]);
    const byDirectory = await loadCustomTools({ path: dir });
    expect(byDirectory.tools.map((tool) => tool.name)).toEqual(["not_chosen"]);
  });

  it("refuses a path that does not exist, holds no tools file or has another extension", async () => {
    const dir = dirWith({ "tools.txt": "", "readme.md": "" });
    expect((await loadError({ cwd: dir, path: "missing.ts" })).message).toContain(join(dir, "missing.ts"));
    expect((await loadError({ path: dir })).message).toMatch(/none of tools\.ts, tools\.js, tools\.mjs, tools\.py/);
    expect((await loadError({ cwd: dir, path: "tools.txt" })).message).toMatch(/unsupported file type/);
  });
});

describe("a TS/JS tools file that cannot be loaded", () => {
  it("a syntax error names the file and line", async () => {
    const dir = dirWith({ "tools.ts": 'export const tools = [\n  [{ name: "x" }, async () => 1,\n];\n' });
    const error = await loadError({ cwd: dir });
    expect(error.message).toContain(`${join(dir, "tools.ts")}:3`);
    expect(error.line).toBe(3);
  });

  it("a throw at import names the file and the line that threw", async () => {
    const source =
      'const ready = false;\n\nif (!ready) {\n  throw new Error("config missing");\n}\nexport const tools = [];\n';
    const error = await loadError({ cwd: dirWith({ "tools.ts": source }) });
    expect(error.message).toMatch(/tools\.ts:4: .*config missing/);
  });

  it("a module without a tools list, or with a wrong shape, is an error, not an empty list", async () => {
    expect((await loadError({ cwd: dirWith({ "tools.ts": "export const tool = 1;\n" }) })).message).toMatch(
      /exports no `tools`/,
    );
    expect((await loadError({ cwd: dirWith({ "tools.ts": "export const tools = {};\n" }) })).message).toMatch(
      /must be an array/,
    );
    const notPair = 'export const tools = [[{ name: "a" }, async () => 1], { name: "b" }];\n';
    expect((await loadError({ cwd: dirWith({ "tools.ts": notPair }) })).message).toMatch(
      /tools\[1\] must be a \[definition, function\] pair/,
    );
  });

  it("a definition without a name, a bad name or bad parameters is an error", async () => {
    const noName = 'export const tools = [[{ description: "nameless" }, async () => 1]];\n';
    expect((await loadError({ cwd: dirWith({ "tools.ts": noName }) })).message).toMatch(
      /tools\[0\]: the definition has no name/,
    );
    const badName = 'export const tools = [[{ name: "get weather" }, async () => 1]];\n';
    expect((await loadError({ cwd: dirWith({ "tools.ts": badName }) })).message).toMatch(/"get weather" must be/);
    const badParameters = 'export const tools = [[{ name: "a", parameters: { type: "string" } }, async () => 1]];\n';
    expect((await loadError({ cwd: dirWith({ "tools.ts": badParameters }) })).message).toMatch(
      /parameters must be a JSON Schema object/,
    );
  });

  it("two tools with the same name is an error pointing at the second", async () => {
    const source = [
      "export const tools = [",
      '  [{ name: "twice" }, async () => 1],',
      '  [{ name: "once" }, async () => 2],',
      '  [{ name: "twice" }, async () => 3],',
      "];",
      "",
    ].join("\n");
    const error = await loadError({ cwd: dirWith({ "tools.ts": source }) });
    expect(error.message).toMatch(/tools\.ts:4: tools\[2\]: the name "twice" is already used by tools\[0\]/);
  });
});

describe("custom tools in the registry", () => {
  it("bad arguments and a throwing tool give an error outcome, good arguments a value", async () => {
    const custom = await loadCustomTools({ cwd: dirWith({ "tools.ts": TS_TOOLS }) });
    const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)));
    const add = (await invoker.find("add"))!;
    expect(await invoker.call(add, { a: 1, b: 2 })).toEqual({ ok: true, value: { sum: 3 } });
    expect(await invoker.call(add, { a: 1 })).toEqual({
      ok: false,
      error: "Invalid arguments for add: arguments must have required property 'b'",
    });
    expect(await invoker.call(add, { a: "one", b: 2 })).toEqual({
      ok: false,
      error: "Invalid arguments for add: a must be number",
    });
    expect(await invoker.call((await invoker.find("fails"))!, {})).toEqual({ ok: false, error: "the tool broke" });
  });
});
