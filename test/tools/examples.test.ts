import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCustomTools } from "../../src/tools/custom.ts";
import { ToolInvoker } from "../../src/tools/invoker.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));

describe("the example tools files a user can copy", () => {
  it("examples/tools.ts loads and its tools run through the registry", async () => {
    const custom = await loadCustomTools({ cwd: examples, path: "tools.ts" });
    const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)));
    expect((await invoker.list()).map((tool) => tool.name)).toEqual(["get_weather", "add_numbers"]);
    const weather = await invoker.call((await invoker.find("get_weather"))!, { city: "Paris", unit: "fahrenheit" });
    expect(weather).toEqual({
      ok: true,
      value: { city: "Paris", temperature: expect.any(Number), unit: "fahrenheit", conditions: expect.any(String) },
    });
    expect(await invoker.call((await invoker.find("add_numbers"))!, { a: 2, b: 3 })).toEqual({
      ok: true,
      value: { sum: 5 },
    });
    expect(await invoker.call((await invoker.find("get_weather"))!, {})).toMatchObject({ ok: false });
    await custom.close();
  });

  it("examples/tools.py loads and its async and sync tools run through the registry", async () => {
    const custom = await loadCustomTools({ path: `${examples}tools.py` });
    try {
      const invoker = new ToolInvoker(new ToolRegistry().addSource(staticSource(custom.tools)));
      expect((await invoker.list()).map((tool) => tool.name)).toEqual(["get_weather", "convert_temperature"]);
      expect(await invoker.call((await invoker.find("get_weather"))!, { city: "Paris" })).toEqual({
        ok: true,
        value: { city: "Paris", temperature: expect.any(Number), unit: "celsius", conditions: expect.any(String) },
      });
      const convert = (await invoker.find("convert_temperature"))!;
      expect(await invoker.call(convert, { value: 100 })).toEqual({
        ok: true,
        value: { value: 212, unit: "fahrenheit" },
      });
      expect(await invoker.call(convert, { value: 212, to: "celsius" })).toEqual({
        ok: true,
        value: { value: 100, unit: "celsius" },
      });
    } finally {
      await custom.close();
    }
  });

  it("both examples describe the same weather for the same city", async () => {
    const ts = await loadCustomTools({ path: `${examples}tools.ts` });
    const py = await loadCustomTools({ path: `${examples}tools.py` });
    try {
      for (const city of ["Paris", "Oslo", "São Paulo"]) {
        const fromTs = await ts.tools[0]!.run({ city }, {});
        expect(await py.tools[0]!.run({ city }, {})).toEqual(fromTs);
      }
    } finally {
      await py.close();
    }
  });
});
