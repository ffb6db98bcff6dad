// The tests' way to hand the server a fixed set of tools.
import { staticSource, type Tool, ToolRegistry } from "../../src/tools/registry.ts";

export function registryWith(...tools: Tool[]): ToolRegistry {
  return new ToolRegistry().addSource(staticSource(tools));
}
